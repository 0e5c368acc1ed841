import { spawnSync } from 'node:child_process';
import { cp, mkdir, readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * A Dockerfile's instructions, read as docker reads them: one per line, `\` continuing a line, comments dropped,
 * each instruction with its arguments (JSON form kept as written).
 */
export interface Instruction {
  keyword: string;
  args: string;
}

export async function readDockerfile(path: string): Promise<Instruction[]> {
  const text = (await readFile(path, 'utf8')).replace(/\\\n/g, ' ');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** The build context as COPY sees it: every file of `root` but those .dockerignore names (top-level names and globs). */
export async function contextFilter(root: string): Promise<(path: string) => boolean> {
  const ignored = (await readFile(join(root, '.dockerignore'), 'utf8').catch(() => ''))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((pattern) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`));
  return (path) => {
    const inside = relative(root, path);
    return inside === '' || !ignored.some((pattern) => pattern.test(inside));
  };
}

/** Copies `sources` (relative to `from`) to `to`, a folder when it ends with `/` or several are copied, as COPY does. */
export async function copyInto(
  from: string,
  sources: string[],
  to: string,
  filter: (path: string) => boolean = () => true,
): Promise<void> {
  for (const source of sources) {
    const path = join(from, source);
    if (source === '.') {
      await mkdir(to, { recursive: true });
      for (const entry of await readdir(path)) {
        if (filter(join(path, entry)))
          await cp(join(path, entry), join(to, entry), { recursive: true, filter, verbatimSymlinks: true });
      }
    } else {
      const target = to.endsWith('/') || sources.length > 1 ? join(to, source.split('/').at(-1)!) : to;
      await cp(path, target, { recursive: true, filter, verbatimSymlinks: true });
    }
  }
}

/** The image's `node` user (uid 1000 in the official image) stands for any unprivileged user: here, `nobody`. */
export const IMAGE_USER = 'nobody';
export const IMAGE_GROUP = 'nogroup';

/** The final stage as built: its root folder, environment, user, command and health check. */
export interface BuiltImage {
  root: string;
  env: Record<string, string>;
  user: string;
  cmd: string[];
  healthcheck: string[];
}

/** `K=V K2="V 2"` pairs of ENV. */
const envPairs = (args: string): Array<[string, string]> =>
  [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)].map(([, name, value]) => [
    name!,
    value!.replace(/^"|"$/g, ''),
  ]);

/**
 * Runs a Dockerfile's build as docker would, without docker: each stage in a folder of its own under `root` standing for
 * its `/`; COPY from the build context (`context`, minus .dockerignore) or from an earlier stage; RUN by sh in the
 * WORKDIR with the stage's ENV, absolute paths of the image (`/app`, `/data`) mapped into the stage's folder and the
 * image's user to IMAGE_USER. The base image's own files are the machine's (its `node` user is IMAGE_USER; the test puts
 * the running Node.js where the image has it).
 */
export async function buildLikeDocker(
  dockerfile: string,
  root: string,
  context = join(dockerfile, '..', '..', '..'),
): Promise<BuiltImage> {
  const filter = await contextFilter(context);
  const stages = new Map<string, string>();
  let stage = '';
  let workdir = '/';
  let env: Record<string, string> = {};
  let image: BuiltImage | undefined;
  const inImage = (path: string): string => join(stage, path.startsWith('/') ? path : join(workdir, path));
  for (const { keyword, args } of await readDockerfile(dockerfile)) {
    if (keyword === 'FROM') {
      stage = join(root, `stage-${stages.size}`);
      await mkdir(stage, { recursive: true });
      stages.set(/\sAS\s+(\S+)/i.exec(args)?.[1] ?? String(stages.size), stage);
      workdir = '/';
      env = {};
      image = { root: stage, env, user: 'root', cmd: [], healthcheck: [] };
    } else if (keyword === 'WORKDIR') {
      workdir = args;
      await mkdir(inImage(args), { recursive: true });
    } else if (keyword === 'ENV') {
      for (const [name, value] of envPairs(args)) env[name] = value;
    } else if (keyword === 'COPY') {
      const words = args.split(/\s+/);
      const from = words.find((word) => word.startsWith('--from='))?.slice('--from='.length);
      const [destination, ...sources] = words.filter((word) => !word.startsWith('--')).reverse();
      if (from)
        await copyInto(
          stages.get(from)!,
          sources.reverse().map((source) => source.replace(/^\//, '')),
          inImage(destination!),
        );
      else await copyInto(context, sources.reverse(), inImage(destination!), filter);
    } else if (keyword === 'RUN') {
      const command = args
        .replace(/(^|\s)\/(app|data)\b/g, (_whole, space: string, top: string) => `${space}${join(stage, top)}`)
        .replace(/\bnode:node\b/g, `${IMAGE_USER}:${IMAGE_GROUP}`);
      const npmCache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
      const run = spawnSync('sh', ['-c', command], {
        cwd: inImage(workdir),
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: join(root, 'home'), npm_config_cache: npmCache, ...env },
      });
      if (run.status !== 0) throw new Error(`RUN ${args} failed (${run.status}):\n${run.stderr}`);
    } else if (keyword === 'USER') image!.user = args;
    else if (keyword === 'CMD') image!.cmd = JSON.parse(args) as string[];
    else if (keyword === 'HEALTHCHECK')
      image!.healthcheck = JSON.parse(args.slice(args.indexOf('CMD ') + 4)) as string[];
    else if (!['VOLUME', 'EXPOSE'].includes(keyword))
      throw new Error(`instruction ${keyword} is not one this build knows`);
  }
  return image!;
}
