// `node --cpu-prof` for a process whose command line the bench does not hold (Node refuses --cpu-prof in
// NODE_OPTIONS): preloaded with NODE_OPTIONS=--require=<this file>, it profiles from start to exit and writes
// CPU-<pid>.cpuprofile into BENCH_CPU_PROF (open it in Chrome's DevTools, or read it with cpu-profile-top.mjs).
// SIGUSR2 starts the profile afresh (what came before is dropped): the bench sends it when the part it measures begins.
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 500 });
session.post('Profiler.start');
process.on('SIGUSR2', () => {
  session.post('Profiler.stop', () => session.post('Profiler.start'));
});
process.on('exit', () => {
  // The in-process session answers synchronously, so the profile is written before the process ends.
  session.post('Profiler.stop', (err, { profile }) => {
    if (!err) writeFileSync(join(process.env.BENCH_CPU_PROF, `CPU-${process.pid}.cpuprofile`), JSON.stringify(profile));
  });
});
