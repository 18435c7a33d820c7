import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * A lock the kernel releases when its holder dies: a listening Unix socket. On Linux it lives in
 * the abstract namespace, so binding is atomic (EADDRINUSE while any live process holds it) and
 * nothing is left behind: a process killed with SIGKILL, or not yet reaped, has already lost its
 * sockets, and no pid in a file can be mistaken for a live holder after a reboot reuses it.
 * Elsewhere it is a socket file whose holder is alive exactly when a connect to it succeeds.
 *
 * The abstract namespace belongs to the network namespace: two containers sharing a data volume
 * but not a network namespace do not see each other's lock.
 */
export interface KernelLock {
  release(): Promise<void>;
}

function address(name: string): string {
  const id = crypto.createHash("sha256").update(name).digest("hex").slice(0, 32);
  return process.platform === "linux" ? `\0pmb-lock-${id}` : path.join(os.tmpdir(), `pmb-lock-${id}.sock`);
}

function listen(server: net.Server, addr: string): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const onError = (error: NodeJS.ErrnoException) => resolve(error);
    server.once("error", onError);
    server.listen(addr, () => {
      server.off("error", onError);
      resolve(null);
    });
  });
}

/** True when a live process holds the lock `name`. */
export function isLocked(name: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(address(name));
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Takes the lock `name`, or returns null when a live process holds it. */
export async function tryLock(name: string): Promise<KernelLock | null> {
  const addr = address(name);
  for (let attempt = 0; attempt < 2; attempt++) {
    const server = net.createServer((socket) => socket.destroy());
    const error = await listen(server, addr);
    if (!error) {
      server.unref();
      let released = false;
      return {
        release: () =>
          new Promise<void>((resolve) => {
            if (released) return resolve();
            released = true;
            server.close(() => resolve());
          }),
      };
    }
    if (error.code !== "EADDRINUSE") throw error;
    if (process.platform === "linux" || (await isLocked(name))) return null;
    // A socket file left by a dead holder: nobody accepts on it any more.
    fs.rmSync(addr, { force: true });
  }
  return null;
}

const processTag = crypto.randomBytes(9).toString("base64url").replace(/[-_]/g, "x");
let processLock: Promise<KernelLock | null> | null = null;

/**
 * This process's own tag, held as a lock for its whole life: files named with it belong to a
 * live process exactly while `isLocked(tagLockName(tag))`.
 */
export async function ownTag(): Promise<string> {
  processLock ??= tryLock(tagLockName(processTag));
  await processLock;
  return processTag;
}

export function tagLockName(tag: string): string {
  return `process:${tag}`;
}
