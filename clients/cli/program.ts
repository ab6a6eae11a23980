/**
 * The `einv` command line (commander): bootstrap, send, validate, tail events, webhooks verify.
 * Every command goes through the typed client in clients/typescript; errors are one line on
 * stderr and a non-zero exit code, never a stack trace.
 */
import { Command } from 'commander';
import { bootstrapCommand } from './bootstrap.ts';
import { cliContext, UsageError, type GlobalOptions } from './context.ts';
import { sendCommand } from './send.ts';
import { tailEventsCommand } from './tail.ts';
import { validateCommand } from './validate.ts';
import { webhooksVerifyCommand } from './webhooks.ts';

export function buildProgram(): Command {
  const program = new Command('einv')
    .description('Command line of the e-invoicing exchange API')
    .option('--base-url <url>', 'API base URL (EINV_BASE_URL, the config file, or http://localhost:3000)')
    .option('--api-key <key>', 'API key (EINV_API_KEY, or the one `einv bootstrap` saved)')
    .option('--company <id>', 'platform keys: the company to act for (X-Service-Company)')
    .option('--config <file>', 'config file (EINV_CONFIG, default ~/.config/einv/config.json)')
    .showHelpAfterError();
  const ctx = () => cliContext(program.opts<GlobalOptions>());

  program.command('bootstrap')
    .description('create a sandbox organization and save its test key to the config file (mode 0600)')
    .option('--label <label>', 'label of the sandbox organization')
    .option('--email <email>', 'contact e-mail')
    .option('--print', 'print the key instead of saving it')
    .action(async (options) => { await bootstrapCommand(ctx(), options); });

  program.command('send')
    .description('send a file, or every .json/.xml file of a folder; exit code 1 if any fails')
    .argument('<path>', 'a file or a folder')
    .option('--to <recipient>', 'recipient (Peppol id, company id or reception point) for files that name none')
    .option('--concurrency <n>', 'sends in flight at once (1-16)', '4')
    .action(async (path: string, options) => { process.exitCode = await sendCommand(ctx(), path, options); });

  program.command('validate')
    .description('validate a document (JSON, UBL or CII) and print each finding with its location and fix; exit code 1 if invalid')
    .argument('<file>', 'the document')
    .option('--country <CC>', 'destination country: adds its national rules')
    .option('--network <network>', '`peppol`: the Peppol BIS rules whatever the CustomizationID')
    .action(async (file: string, options) => { process.exitCode = await validateCommand(ctx(), file, options); });

  program.command('tail')
    .description('follow a log')
    .command('events')
    .description('follow the event log, oldest first')
    .option('--type <type>', 'only this event type, e.g. document.sent')
    .option('--history <n>', 'recent events shown first (0-100)', '10')
    .option('--interval <ms>', 'poll interval', '1000')
    .option('--max <n>', 'stop after n events')
    .option('--json', 'one JSON event per line')
    .action(async (options) => { process.exitCode = await tailEventsCommand(ctx(), options); });

  program.command('webhooks')
    .description('webhook tools')
    .command('verify')
    .description('check a delivery\'s X-Service-Signature against the raw body; exit code 1 if it does not match')
    .requiredOption('--signature <header>', 'the X-Service-Signature header value')
    .option('--secret <secret>', 'the webhook secret (EINV_WEBHOOK_SECRET); several comma-separated during a rotation')
    .option('--body <file>', 'the raw body as received (default: stdin)')
    .option('--tolerance <seconds>', 'accepted clock difference', '300')
    .action((options) => { process.exitCode = webhooksVerifyCommand(options); });

  return program;
}

/** Runs the command line; a UsageError or a network failure is one line on stderr and exit code 2. */
export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    // fetch says only "fetch failed"; its cause says why (ECONNREFUSED, ENOTFOUND, bad port …).
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message;
    const message = err instanceof UsageError ? err.message : `${(err as Error).message}${why ? ` (${why})` : ''}`;
    process.stderr.write(`einv: ${message}\n`);
    process.exitCode = 2;
  }
}
