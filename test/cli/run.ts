import type { CliIo } from '../../lib/cli/command.js';
import { main } from '../../lib/cli/main.js';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured output, the given stdin, and only the test's environment. */
export async function cli(env: NodeJS.ProcessEnv, args: string[], stdin = ''): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => { stdout += text; },
    stderr: (text) => { stderr += text; },
    readStdin: async () => stdin,
    env,
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}
