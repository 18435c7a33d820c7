import type { EndpointName } from "@/lib/api/endpoint-table";
import { PARAMS_HEAD, paramRows } from "@/lib/docs/params-table";
import { Table } from "./table";

/** An endpoint's parameters, generated from the parameter table (lib/docs/params-table.ts). */
export function ParamsTable({ endpoint }: { endpoint: EndpointName }) {
  return <Table code head={PARAMS_HEAD} rows={paramRows(endpoint)} />;
}
