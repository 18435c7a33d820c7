import { definitionLineOf } from "@/lib/catalog/compile";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { VenueEventLegs } from "@/lib/venues/types";

/** A venue series' legs as first discovered: the event's outcomes, its definition line and settlement date. */
export interface FirstLegs {
  legs: string[];
  definitionLine: string;
  settlementDate: Date | null;
}

/**
 * The legs a series takes from the first read of its event (at least two outcomes), whichever job
 * reads it first: the collector, or a back-calculation that runs before the collector's first read.
 * Null when the event lists fewer than two.
 */
export function firstLegsOf(
  series: { name: string; headlineTenorDays: number; settlementDate: Date | null },
  event: VenueEventLegs,
): FirstLegs | null {
  if (event.legs.length < 2) return null;
  return {
    legs: event.legs.map((l) => l.conditionId),
    definitionLine: definitionLineOf(series.name, event.title, event.legs.length, series.headlineTenorDays),
    settlementDate:
      series.settlementDate ?? (event.settlementDate ? new Date(`${event.settlementDate}T00:00:00Z`) : null),
  };
}

/** Stores a series' first legs unless it has legs already (another job discovered them first). */
export async function storeFirstLegs(tx: Prisma.TransactionClient, ticker: string, first: FirstLegs): Promise<void> {
  await tx.volatilitySeries.updateMany({
    where: { ticker, legConditionIds: { isEmpty: true } },
    data: { legConditionIds: first.legs, definitionLine: first.definitionLine, settlementDate: first.settlementDate },
  });
}
