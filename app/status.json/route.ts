import { config } from "@/lib/config";
import { statusView } from "@/lib/data/status";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

// /status as JSON: the same read model as the page, field for field, plus the start-up backfill.
export async function GET() {
  const backfill = root().progress;
  const view = await statusView(root().read, config().ENGINE_TICK_SECONDS);
  return Response.json(
    {
      ...view,
      backfill: {
        state: backfill.state,
        hoursDone: backfill.hoursDone,
        hoursTotal: backfill.hoursTotal,
        through: backfill.through,
      },
    },
    { headers: { "Cache-Control": "no-store" } },
  );
}
