// Preloaded into a measured process: reports its peak resident set size on exit.
process.on('exit', () => {
  process.stderr.write(`\nbench:maxrss_kb=${process.resourceUsage().maxRSS}\n`);
});
