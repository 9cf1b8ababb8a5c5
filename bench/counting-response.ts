// A stand-in for the client's response in the in-process stream benches (pipe-stream-micro.ts,
// pipe-stream-alloc.ts): what pipe-stream and the SSE writer use of one, counting the bytes written.

/** Bytes a response got, and the response itself. */
export function countingResponse(): { res: unknown; bytes: () => number } {
  let bytes = 0;
  let ended = false;
  const res = {
    socket: null,
    destroyed: false,
    get writableEnded() {
      return ended;
    },
    writeHead: () => res,
    flushHeaders: () => {},
    write: (s: string) => ((bytes += s.length), true),
    end: () => (ended = true),
    on: () => res,
    off: () => res,
    once: () => res,
  };
  return { res, bytes: () => bytes };
}
