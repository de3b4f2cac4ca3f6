/**
 * Preloaded into a bridge child by bench/alloc.ts (`node --import <this file>`): V8's sampling heap profiler
 * in the bridge's own process, driven by signals so the bench measures a window of its choosing.
 * The first SIGUSR2 starts sampling (then writes `<ALLOC_SAMPLER_OUT>.started`), the next stops it and writes
 * the profile to `<ALLOC_SAMPLER_OUT>`, and so on. Objects that collections freed stay in the profile
 * (V8 ≥ 11.2), so the figure is what was allocated, not what survived. Plain JS: the bridge child runs
 * without tsx, as users run it.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

const out = process.env.ALLOC_SAMPLER_OUT;
const interval = Number(process.env.ALLOC_SAMPLER_INTERVAL ?? 256);
if (out) {
  const session = new Session();
  session.connect();
  let sampling = false;
  let busy = Promise.resolve();
  process.on('SIGUSR2', () => {
    busy = busy.then(async () => {
      if (!sampling) {
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: interval,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        });
        sampling = true;
        writeFileSync(`${out}.started`, '');
      } else {
        const { profile } = await session.post('HeapProfiler.stopSampling');
        sampling = false;
        writeFileSync(`${out}.tmp`, JSON.stringify(profile));
        // Renamed once whole, so the bench never reads half a file.
        renameSync(`${out}.tmp`, out);
      }
    });
  });
}
