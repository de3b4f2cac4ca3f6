// `node --import ./crash-on-signal.mjs`: on SIGUSR2 the process meets an error nothing catches, thrown from a timer
// (CRASH_KIND=throw, the default) or a promise rejected with no handler (CRASH_KIND=reject). The log-flush tests'
// way to crash the real CLI at a moment they choose, with no hook in the product's code.
process.on('SIGUSR2', () => {
  setTimeout(() => {
    if (process.env.CRASH_KIND === 'reject') void Promise.reject(new Error('crash requested by the test (rejection)'));
    else throw new Error('crash requested by the test (throw)');
  }, 0);
});
