import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ID_PATTERN } from '../websites/schemas/path-parameters.js';
import { UsageError, type Command } from './command.js';

type Options = NonNullable<ParseArgsConfig['options']>;

const optionList = (options: Options): string =>
  Object.entries(options)
    .map(([name, option]) => `--${name}${option.type === 'string' ? ' VALUE' : ''}`)
    .join(', ');

/** The option an error of parseArgs is about (its messages quote it, e.g. "Option '--email <value>' argument missing"). */
const optionIn = (message: string): string => /'(-[^' ]+)/.exec(message)?.[1] ?? 'an option';

/**
 * parseArgs in strict mode, its errors rewritten as one line that says what to type instead (Node's own messages talk
 * about positionals and "--" when an option is simply unknown or lacks its value).
 */
export function parseCommandLine(command: Command, args: string[]): Parameters<Command['run']>[0] {
  const options: Options = { ...command.options, help: { type: 'boolean', short: 'h' } };
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const option = optionIn(message);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new UsageError(`unknown option ${option}; "${command.name}" takes ${optionList(options)}`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const wantsValue = options[option.replace(/^-+/, '')]?.type === 'string';
      throw new UsageError(wantsValue ? `${option} needs a value: ${option} VALUE` : `${option} takes no value`);
    }
    throw new UsageError(message);
  }
}

const ID = new RegExp(ID_PATTERN);

/** The value of an id option (--website, --webmaster): a positive whole number of at most 15 digits, as the External API takes. */
export function idOf(option: 'website' | 'webmaster', value: unknown): number {
  const text = typeof value === 'string' ? value.trim() : '';
  if (!ID.test(text)) throw new UsageError(`--${option} must be a ${option} id (a positive whole number)`);
  return Number(text);
}

/**
 * The one subcommand a command line names, among `names`: a missing, unknown or extra word is a usage error that
 * says what to type instead (the same words for every command that has subcommands).
 */
export function subcommandOf<Name extends string>(
  command: Pick<Command, 'name'>,
  positionals: readonly string[],
  names: readonly Name[],
): Name {
  const [subcommand, ...extra] = positionals;
  const help = `(run "age-provider ${command.name} --help")`;
  const choices = names.map((name) => `"${name}"`).join(' or ');
  if (subcommand === undefined) throw new UsageError(`a subcommand is required: ${choices} ${help}`);
  if (!(names as readonly string[]).includes(subcommand))
    throw new UsageError(`unknown subcommand "${subcommand}": use ${choices} ${help}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}" ${help}`);
  return subcommand as Name;
}
