// Run by tick-shape.test.ts as `node --allow-natives-syntax --expose-gc … tick-shape-child.mjs [held]`:
// queues ticks, lets them all finish, collects garbage with none queued (what an idle server's
// memory reducer does), queues ticks again, then prints V8's feedback for process.nextTick.
if (process.argv[2] === "held") await import("../../../scripts/lib/tick-shape.mjs");
const ticks = (n) =>
  new Promise((resolve) => {
    let i = 0;
    const step = () => (++i < n ? process.nextTick(step) : resolve());
    process.nextTick(step);
  });
const turn = () => new Promise((resolve) => setTimeout(resolve, 5));
await ticks(5000);
await turn();
for (let i = 0; i < 3; i++) {
  globalThis.gc();
  await turn();
}
await ticks(5000);
new Function("f", "%DebugPrint(f)")(process.nextTick);
