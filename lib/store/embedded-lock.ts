import { chmod, readdir, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../config/settings.js';

export class DatabaseInUseError extends Error {
  override name = 'DatabaseInUseError';
}

/**
 * The owner of the embedded database listens on a Unix socket in DATA_DIR, `owner-<n>.sock`. A process ID says
 * nothing across PID namespaces (a container's server is PID 1, a host process reading its record sees another
 * process 1), but a socket in the shared folder answers the same to everyone who can open the folder: a live owner
 * accepts a connection, and the kernel refuses one for a socket whose process is gone, however it ended (a SIGKILL
 * included). So a refused connection is proof that the owner is dead and its lock can be taken over.
 *
 * Taking a lock over must not let two processes in at once. Binding a socket path is an exclusive create (it fails
 * while the file exists), so each owner binds the next number after the highest it found dead, and only the highest
 * number present owns: a process that bound a lower number (it read the folder before someone else took it over)
 * finds the higher one once bound, and backs off. The numbers of dead owners are removed by the next owner.
 */
const SOCKET = /^owner-(\d+)\.sock$/;
const socketName = (epoch: number): string => `owner-${String(epoch)}.sock`;
/** An owner that accepted a connection but says nothing within this long is still alive (a busy process). */
const PROBE_MS = 2000;
/** A record file of the versions that locked with a process ID: meaningless now, removed by the next owner. */
const LEGACY_RECORD = 'owner.pid';

/**
 * The longest socket path every platform binds as given: the kernel keeps 108 bytes on Linux and 104 on macOS
 * (terminator included), and Node cuts a longer path silently, which would bind the lock somewhere else.
 */
const MAX_SOCKET_PATH_BYTES = 103;

/** The owners' socket numbers in `dataDir`, highest first. */
async function epochs(dataDir: string): Promise<number[]> {
  const names = await readdir(dataDir);
  return names
    .flatMap((name) => {
      const match = SOCKET.exec(name);
      return match ? [Number(match[1])] : [];
    })
    .sort((a, b) => b - a);
}

/** What an owner says about itself to whoever connects: for the refusal's message only. */
interface OwnerInfo {
  pid?: number;
  host?: string;
}

/**
 * Connects to an owner's socket: undefined when the connection is refused (or the socket is gone), that is, when no
 * process listens on it any more; else what the owner said about itself (possibly nothing). Any other failure counts
 * as a live owner: refusing to start is safe, opening the files twice is not.
 */
function probe(path: string): Promise<OwnerInfo | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    let text = '';
    const settle = (answer: OwnerInfo | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const said = (): OwnerInfo => {
      try {
        const { pid, host } = JSON.parse(text) as Record<string, unknown>;
        return { ...(typeof pid === 'number' ? { pid } : {}), ...(typeof host === 'string' ? { host } : {}) };
      } catch {
        return {};
      }
    };
    const timer = setTimeout(() => settle({}), PROBE_MS);
    let connected = false;
    socket.on('connect', () => {
      connected = true;
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('end', () => settle(said()));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      settle(connected || (error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT') ? said() : undefined);
    });
  });
}

/** Listens on `path`, or undefined when the path is already taken (by an owner, live or dead, or by a rival). */
async function bindExclusive(path: string): Promise<Server | undefined> {
  // Whoever connects learns who owns the database, and nothing else.
  const server = createServer((socket) => socket.end(`${JSON.stringify({ pid: process.pid, host: hostname() })}\n`));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return undefined;
    throw error;
  }
  // The lock must not keep a process alive by itself.
  server.unref();
  await chmod(path, 0o600);
  return server;
}

async function unbind(server: Server, path: string): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(path, { force: true });
}

function inUse(dataDir: string, owner: OwnerInfo): DatabaseInUseError {
  const who =
    owner.pid === undefined
      ? 'another process'
      : `process ${String(owner.pid)}${owner.host ? ` on ${owner.host}` : ''}`;
  return new DatabaseInUseError(
    `the embedded database in ${dataDir} is in use by ${who} (a running age-provider). ` +
      'Stop that process first, or run the server and this command against PostgreSQL with DATABASE_URL.',
  );
}

/**
 * The embedded database belongs to one process: a second one opening the same files would corrupt them. Takes the
 * lock in `dataDir` (see above), also from a process in another PID namespace sharing the folder; a lock whose owner
 * is gone is taken over. Returns the release.
 */
export async function lockEmbedded(dataDir: string): Promise<() => Promise<void>> {
  for (;;) {
    const [highest = 0] = await epochs(dataDir);
    if (highest > 0) {
      // This very process counts too: two PGlite instances on one folder corrupt it just the same.
      const owner = await probe(join(dataDir, socketName(highest)));
      if (owner) throw inUse(dataDir, owner);
    }
    const path = join(dataDir, socketName(highest + 1));
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
      throw new ConfigError(
        `DATA_DIR: ${dataDir} is too long a path for the embedded database's lock (${path} must fit in ${String(MAX_SOCKET_PATH_BYTES)} bytes); choose a shorter one, or a symbolic link to it`,
      );
    }
    const server = await bindExclusive(path);
    // Another process took this number first: look again (it is alive, or dead, like any other owner).
    if (!server) continue;
    const [now, ...older] = await epochs(dataDir);
    if (now !== highest + 1) {
      // Someone took over a higher number meanwhile: theirs wins.
      await unbind(server, path);
      continue;
    }
    await Promise.all([
      ...older.map((epoch) => rm(join(dataDir, socketName(epoch)), { force: true })),
      rm(join(dataDir, LEGACY_RECORD), { force: true }),
    ]);
    return () => unbind(server, path);
  }
}
