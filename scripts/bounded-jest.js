// One jest run bounded in wall-clock time, that says why when it is stopped.
//
// A jest test or hook has a timeout, but nothing bounds jest itself: a worker stuck in a
// synchronous loop never lets the timer fire, and a test that leaves a handle open (a server, a
// timer, a child) keeps an in-band jest alive after its run. Either way CI waits until its own
// limit and keeps no log. Here the run is stopped at `limitMs`, or `exitGraceMs` after jest
// reported its run complete, naming the test files still running (from the progress reporter,
// scripts/jest-progress.js). Every wait is bounded; the jest process group is stopped on the way out.
'use strict';
const { spawn } = require('node:child_process');
const { existsSync, readFileSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const REPORTER = path.join(__dirname, 'jest-progress.js');
const POLL_MS = 500;
const KILL_GRACE_MS = 5_000;

/** What the progress file says: the files started and not finished (with when), and whether the run completed. */
function readProgress(file) {
  const running = new Map();
  let completeAt;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  for (const line of text.split('\n')) {
    const [what, at, test] = line.split('\t');
    if (what === 'start') running.set(test, Number(at));
    else if (what === 'done') running.delete(test);
    else if (what === 'complete') completeAt = Number(at);
  }
  return { running: [...running].map(([test, at]) => ({ test, at })), completeAt };
}

/**
 * Runs `node <args…>` (a jest command line; the progress reporter is added) in its own process
 * group. Resolves { status, signal, stopped, interrupted } where `stopped` is the reason it was
 * stopped, or undefined when it ended by itself, and `interrupted` the signal this process got.
 * SIGINT/SIGTERM/SIGHUP/SIGQUIT to this process go on to the group, then SIGKILL after
 * KILL_GRACE_MS; a watchdog kills the group if this process dies otherwise.
 */
function runBounded({ label, args, limitMs, exitGraceMs, cwd, env }) {
  const progress = path.join(os.tmpdir(), `jest-progress-${process.pid}-${Date.now()}.tsv`);
  const startedAt = Date.now();
  const child = spawn(process.execPath, [...args, '--reporters=default', `--reporters=${REPORTER}`], {
    cwd,
    env: { ...env, JEST_PROGRESS_FILE: progress },
    stdio: 'inherit',
    detached: true, // its own group, so that its workers and their children are stopped with it
  });
  const group = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  // The group outlives this process if it dies unasked (SIGKILL): a watchdog whose stdin is a
  // pipe from here kills the group when the pipe ends, however this process went.
  const watchdog = spawn('/bin/sh', ['-c', `read -r _; kill -KILL -${child.pid} 2>/dev/null`], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  watchdog.unref();
  watchdog.stdin.on('error', () => {});
  let interrupted;
  let killTimer;
  const escalate = () => {
    clearTimeout(killTimer);
    killTimer = setTimeout(() => group('SIGKILL'), KILL_GRACE_MS);
  };
  const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'].map((signal) => {
    const on = () => {
      interrupted ??= signal;
      group(signal);
      escalate();
    };
    process.on(signal, on);
    return [signal, on];
  });

  return new Promise((resolve) => {
    let stopped;
    const stop = (reason) => {
      if (stopped) return;
      stopped = reason;
      process.stderr.write(`\n${label}: ${reason}\n`);
      group('SIGTERM');
      escalate();
    };
    const seconds = (ms) => `${Math.round(ms / 1000)} s`;
    const poll = setInterval(() => {
      if (interrupted) return;
      const now = Date.now();
      const { running, completeAt } = readProgress(progress);
      if (completeAt !== undefined && now - completeAt > exitGraceMs)
        stop(
          `jest reported its run complete ${seconds(now - completeAt)} ago and has not exited: a test left a handle ` +
            `open (a server, a timer, a child process). Find it with: npx jest <file> --detectOpenHandles. Stopped.`,
        );
      else if (now - startedAt > limitMs) {
        const list = running.length ? running.map((r) => `${path.relative(cwd, r.test)} (for ${seconds(now - r.at)})`).join(', ') : 'none (between files)';
        stop(
          `not ended within ${seconds(limitMs)}; test files still running: ${list}. A file stuck far past its ` +
            `test timeout blocks its worker's event loop (a synchronous loop or wait). Stopped.`,
        );
      }
    }, POLL_MS);
    child.on('exit', (status, signal) => {
      clearInterval(poll);
      clearTimeout(killTimer);
      // Whatever the group's leader did, nothing of it outlives this run.
      group('SIGKILL');
      for (const [sig, on] of forwarded) process.off(sig, on);
      watchdog.stdin.end();
      rmSync(progress, { force: true });
      resolve({ status, signal, stopped, interrupted });
    });
  });
}

module.exports = { runBounded, readProgress };
