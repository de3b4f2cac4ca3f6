// A test reporter (node:test) that writes one line per top-level test: its time in ms and its file, for test/run.mjs
// to print the slowest files at the end of a run (test/README.md, Timings).
export default async function* fileDurations(source) {
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      yield `${Math.round(event.data.details.duration_ms)}\t${event.data.file}\n`;
    }
  }
}
