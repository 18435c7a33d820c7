import pg from "pg";

// PostgreSQL's `name` type (OID 19) appears in catalog queries of Prisma's schema engine,
// which cannot deserialize it (prisma/orm#27403). It is text in every respect that matters,
// so results report it as `text` (OID 25). Nothing in our own schema uses `name`.
const NAME_OID = 19;
const TEXT_OID = 25;

type Fielded = { fields?: Array<{ dataTypeID: number }> };

function nameAsText<T>(result: T): T {
  for (const r of Array.isArray(result) ? result : [result]) {
    for (const field of (r as Fielded | undefined)?.fields ?? []) {
      if (field.dataTypeID === NAME_OID) field.dataTypeID = TEXT_OID;
    }
  }
  return result;
}

const patched = new WeakSet<object>();

function patchQuery(target: { query: (...args: never[]) => unknown }): void {
  if (patched.has(target)) return;
  patched.add(target);
  const original = target.query.bind(target) as (...args: unknown[]) => unknown;
  (target as { query: unknown }).query = (...args: unknown[]) => {
    const out = original(...args);
    return out instanceof Promise ? out.then(nameAsText) : out;
  };
}

/** A pg.Pool whose results never carry the `name` type, for Prisma's migration engine. */
export class NameAsTextPool extends pg.Pool {
  constructor(config?: pg.PoolConfig) {
    super(config);
    patchQuery(this as unknown as { query: (...args: never[]) => unknown });
    this.on("connect", (client) => patchQuery(client as unknown as { query: (...args: never[]) => unknown }));
  }
}
