/**
 * Loads `stages` one per turn of the event loop. Each module graph evaluates synchronously (the SDK with zod
 * alone takes tens of milliseconds), so one big import would hold up every request arriving meanwhile; in
 * stages a request waits for one at most. Failures surface when a request needs what failed to load.
 */
export async function loadInStages(stages: readonly (() => unknown)[]): Promise<void> {
  for (const stage of stages) {
    await new Promise((resolve) => setImmediate(resolve));
    try {
      await stage();
    } catch {
      // the request that needs it reports it
    }
  }
}
