// Preloaded into a measured process: reports on exit its peak resident set size, its CPU time (all
// threads, ended ones included) and its main thread's CPU time (from /proc, where there is one).
import fs from 'node:fs';

process.on('exit', () => {
  const usage = process.resourceUsage();
  const cpuMs = Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000);
  let mainCpuMs = '';
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    mainCpuMs = ` bench:main_cpu_ms=${(Number(fields[11]) + Number(fields[12])) * 10}`;
  } catch {
    /* not Linux */
  }
  process.stderr.write(`\nbench:maxrss_kb=${usage.maxRSS} bench:cpu_ms=${cpuMs}${mainCpuMs}\n`);
});
