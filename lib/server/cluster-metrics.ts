import cluster from "node:cluster";
import { AggregatorRegistry, type Registry } from "prom-client";

// With WEB_CONCURRENCY > 1 a scrape of /metrics reaches whichever worker accepted it: that worker
// asks the cluster's primary, which gathers every worker's registry (prom-client's
// AggregatorRegistry) and answers with all of them, each worker's series told apart by its
// service_instance_id.

const ASK = "pmb:metrics";
/** How long a worker waits for the primary's gathered metrics. */
const ASK_TIMEOUT_MS = 6_000;

interface Asked {
  type: typeof ASK;
  id: number;
  text?: string;
  error?: string;
}

/** In the primary: answers each worker's request for the cluster's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker, message: Asked) => {
    if (message?.type !== ASK) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ASK, id: message.id, text } satisfies Asked),
      (error: Error) => worker.send({ type: ASK, id: message.id, error: error.message } satisfies Asked),
    );
  });
}

/** In a worker: the registry the primary gathers, and the function /metrics calls for the cluster's text. */
export function clusterMetricsOf(registry: Registry): () => Promise<string> {
  // Constructing one installs prom-client's answer to the primary's requests (its listeners are
  // added by the constructor, in workers too); the registry answered is this root's.
  void new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  let next = 0;
  const waiting = new Map<number, (answer: Asked) => void>();
  process.on("message", (message: Asked) => {
    if (message?.type === ASK) waiting.get(message.id)?.(message);
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error("the cluster's primary did not answer"));
      }, ASK_TIMEOUT_MS);
      waiting.set(id, (answer) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (answer.error !== undefined || answer.text === undefined) reject(new Error(answer.error ?? "no metrics"));
        else resolve(answer.text);
      });
      process.send?.({ type: ASK, id } satisfies Asked);
    });
}
