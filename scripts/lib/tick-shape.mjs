// @ts-check
// Keeps `process.nextTick` fast for the life of a server process. Import it first.
//
// Why: Node 20's nextTick builds each queued tick as an object literal with computed keys
// (`{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback, args }`). V8 records in
// nextTick's feedback the hidden class ("map") each of those property definitions met, and such
// a literal-definition site has no polymorphic state: the first time it meets a different map it
// turns megamorphic for good. The maps of a tick object are held only weakly, so a full garbage
// collection while no tick is queued (an idle server: V8's memory reducer runs one when the
// allocation rate drops after load) frees them, the next tick gets new ones, and from then on
// every nextTick defines three of its four properties through V8's generic path. In a small
// script that costs little; in a server whose other megamorphic sites crowd V8's stub cache it
// measured 300 to 1,000 ns per nextTick, and nextTick went from 0.5 % to 6.5 % of the API
// process's CPU under `npm run bench` (Node's HTTP code queues several ticks per request).
//
// The fix: hold one tick object for as long as the process lives, so its maps are never freed
// and the feedback stays monomorphic. `executionAsyncResource()` (public node:async_hooks API)
// inside a nextTick callback is that callback's tick object. tests/unit/server/tick-shape.test.ts
// checks the feedback state with and without this module.
import { executionAsyncResource } from "node:async_hooks";

/** @type {object | null} */
let held = null;
process.nextTick(() => {
  held = executionAsyncResource();
});

/** The tick object this module holds (null until the first tick has run). */
export function heldTick() {
  return held;
}
