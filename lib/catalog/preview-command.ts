import fs from "node:fs";
import { config, parseConfig } from "@/lib/config";
import { createVenues, venueEndpoints, type CommandIo } from "@/lib/venues/connect";
import { formatPreview, previewCatalog, previewComplete } from "./preview";
import { CatalogError, validateCatalog } from "./validate";

/**
 * `catalog preview FILE`: the catalog's rules, then what each entry would select now, read from the
 * venues only. Exit 0 when every entry was read, 1 when the file is invalid or a venue read failed.
 */
export async function previewCommand(file: string, io: CommandIo & { now?: Date }): Promise<number> {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    io.err(`${file}: ${(error as NodeJS.ErrnoException).code ?? "unreadable"}\n`);
    return 1;
  }
  let catalog;
  try {
    catalog = validateCatalog(file, text);
  } catch (error) {
    if (!(error instanceof CatalogError)) throw error;
    io.err(`${error.message}\n`);
    return 1;
  }
  const venues = createVenues({ ...venueEndpoints(io.env ? parseConfig(io.env) : config()), ...io.endpoints });
  const preview = await previewCatalog(catalog, (venue) => venues.connect(venue).connector, io.now);
  io.out(
    `${file}: valid, ${catalog.indices.length} indices and ${catalog.volatility.length} volatility series\n${formatPreview(preview)}`,
  );
  if (previewComplete(preview)) return 0;
  io.err(`${file}: some entries could not be read in full (venue problems above); the preview is incomplete\n`);
  return 1;
}
