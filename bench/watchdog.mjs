// Names what the bench is still waiting for once a request (or a load run) has gone a minute
// past its expected time without an answer: a stall of the local server then shows in the
// output with the request that waits, instead of as a silent hang. Nothing is aborted.
// While something waits that long, the server is sent another request every 5 s (`onStall`):
// wrangler's proxy parks a GET whose fetch to the runtime failed until its next request comes
// (docs/PERFORMANCE.md), and the bench's one-socket client sends nothing else meanwhile.
const STALL_MS = 60_000;
const pending = new Set();
let kick = () => {};

/** What to send the server while a request stalls. */
export function onStall(fn) {
  kick = fn;
}

/** `promise`, watched under `label`; `expectedMs`: how long it may take before the minute starts. */
export function watched(label, promise, expectedMs = 0) {
  const entry = { label, since: Date.now(), limit: expectedMs + STALL_MS, told: false };
  pending.add(entry);
  return promise.finally(() => {
    pending.delete(entry);
    if (entry.told) console.log(`bench: answered after ${((Date.now() - entry.since) / 1000).toFixed(0)} s: ${label}`);
  });
}

setInterval(() => {
  for (const e of pending)
    if (!e.told && Date.now() - e.since > e.limit) {
      e.told = true;
      console.log(`bench: no answer after ${((Date.now() - e.since) / 1000).toFixed(0)} s, still waiting: ${e.label}`);
    }
  if ([...pending].some((e) => e.told)) kick();
}, 5_000).unref();
