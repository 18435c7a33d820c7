import http from "node:http";
import net from "node:net";

/**
 * A kept-alive connection is closed by the drain once it has been idle this long. A busy client
 * sends its next request well within it and is answered, with `Connection: close`; closing a
 * connection the moment its answer left would race the request its client is already sending
 * (the client then sees a reset on a request the server never read).
 */
export const DRAIN_IDLE_MS = 200;
/** How often the drain looks for connections fallen idle. */
const SWEEP_MS = 25;

interface Tracked {
  /** Requests of this connection not yet answered. */
  active: number;
  /** When its last answer finished (performance.now()). */
  idleSince: number;
}

export interface Drain {
  /** True once `stop` was called (readiness answers 503 from then on). */
  readonly stopping: boolean;
  /** Connections open now. */
  open(): number;
  /**
   * Stops accepting, answers what is under way with `Connection: close` (and every request that
   * still arrives on an open connection), closes connections as they fall idle, and resolves once
   * none is left, or after `budgetMs`, when the rest are cut.
   */
  stop(budgetMs: number): Promise<{ cut: number }>;
}

/**
 * Tracks a server's connections and requests from its start, so that a stop can drain it
 * (lib/server/http-server.ts). The listener stops through net.Server's close (http.Server's own
 * close would first destroy every connection it deems idle at once, including those whose next
 * request is already in the kernel's buffer, unread: their clients get a reset).
 */
export function trackConnections(server: http.Server): Drain {
  const sockets = new Map<net.Socket, Tracked>();
  const answering = new Set<http.ServerResponse>();
  let stopping = false;

  server.on("connection", (socket: net.Socket) => {
    sockets.set(socket, { active: 0, idleSince: performance.now() });
    socket.once("close", () => sockets.delete(socket));
  });
  server.prependListener("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    const tracked = sockets.get(req.socket);
    if (tracked) tracked.active++;
    // The last answer on this connection says so: the client opens its next request elsewhere.
    if (stopping) res.shouldKeepAlive = false;
    answering.add(res);
    res.once("close", () => {
      answering.delete(res);
      if (tracked) {
        tracked.active--;
        tracked.idleSince = performance.now();
      }
    });
  });

  const sweep = (force: boolean) => {
    const now = performance.now();
    for (const [socket, tracked] of sockets) {
      if (force || (tracked.active === 0 && now - tracked.idleSince >= DRAIN_IDLE_MS)) socket.destroy();
    }
  };

  return {
    get stopping() {
      return stopping;
    },
    open: () => sockets.size,
    stop(budgetMs) {
      stopping = true;
      for (const res of answering) if (!res.headersSent) res.shouldKeepAlive = false;
      net.Server.prototype.close.call(server);
      return new Promise((resolve) => {
        const started = performance.now();
        const timer = setInterval(() => {
          const over = performance.now() - started >= budgetMs;
          const cut = over ? sockets.size : 0;
          sweep(over);
          if (sockets.size === 0 || over) {
            clearInterval(timer);
            resolve({ cut });
          }
        }, SWEEP_MS);
      });
    },
  };
}
