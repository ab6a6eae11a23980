/**
 * `einv send <file|folder>`: each file is one send (JSON: a send envelope, or a bare `document`;
 * XML: UBL or CII as written), a few at a time, with a progress bar on stderr and a summary table.
 * The exit code is non-zero when any file failed, so a script can stop on it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import cliProgress from 'cli-progress';
import Table from 'cli-table3';
import type { ExchangeClient, SendEnvelope } from '../typescript/src/index.ts';
import { describeApiError, UsageError, type CliContext } from './context.ts';

export interface SendOptions { to?: string; concurrency?: string }

interface Outcome { file: string; ok: boolean; id?: string; status?: string; error?: string }

/** Files of a folder (not recursive), sorted; or the file itself. */
export function filesOf(path: string): string[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new UsageError(`${path}: no such file or folder`);
  if (stat.isFile()) return [path];
  const files = readdirSync(path).filter((n) => ['.json', '.xml'].includes(extname(n).toLowerCase())).sort().map((n) => join(path, n));
  if (!files.length) throw new UsageError(`${path}: no .json or .xml file in it`);
  return files;
}

/** The send envelope a file makes; `to` fills a missing recipient. */
export function envelopeOf(file: string, to: string | undefined): SendEnvelope {
  const text = readFileSync(file, 'utf8');
  if (extname(file).toLowerCase() === '.xml') {
    if (!to) throw new UsageError(`${basename(file)}: an XML file needs --to <recipient>`);
    return { type: 'invoice', format: /CrossIndustryInvoice/.test(text.slice(0, 2048)) ? 'cii-xml' : 'ubl-xml', to, xml: text };
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`${basename(file)}: not JSON (${(err as Error).message})`);
  }
  const envelope = (json.document ? json : { type: 'invoice', format: 'json', document: json }) as SendEnvelope;
  if (!envelope.to && to) envelope.to = to;
  if (!envelope.format) envelope.format = 'json';
  return envelope;
}

async function sendOne(api: ExchangeClient, file: string, to: string | undefined): Promise<Outcome> {
  const name = basename(file);
  try {
    const { data, error, response } = await api.POST('/v1/documents/send', { body: envelopeOf(file, to) });
    if (data) return { file: name, ok: true, id: data.id, status: data.deliveryStatus };
    return { file: name, ok: false, error: describeApiError(error, response.status) };
  } catch (err) {
    return { file: name, ok: false, error: (err as Error).message };
  }
}

export async function sendCommand(ctx: CliContext, path: string, options: SendOptions): Promise<number> {
  const api = ctx.client();
  const files = filesOf(path);
  const concurrency = Math.min(16, Math.max(1, Number(options.concurrency ?? 4) || 4));
  const bar = new cliProgress.SingleBar({ format: 'sending {bar} {value}/{total} {file}', hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic);
  bar.start(files.length, 0, { file: '' });
  const outcomes: Outcome[] = new Array(files.length);
  let next = 0;
  // A fixed number of workers pull the next file: at most `concurrency` sends in flight.
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, async () => {
    while (next < files.length) {
      const i = next++;
      outcomes[i] = await sendOne(api, files[i]!, options.to);
      bar.increment(1, { file: outcomes[i]!.file });
    }
  }));
  bar.stop();
  // Colours only on a terminal: piped output stays plain text.
  const table = new Table({ head: ['file', 'result', 'document', 'delivery / error'], ...(process.stdout.isTTY ? {} : { style: { head: [], border: [] } }) });
  for (const o of outcomes) table.push([o.file, o.ok ? 'sent' : 'FAILED', o.id ?? '', o.ok ? o.status ?? '' : o.error ?? '']);
  const failed = outcomes.filter((o) => !o.ok).length;
  process.stdout.write(`${table.toString()}\n${outcomes.length - failed} sent, ${failed} failed\n`);
  return failed ? 1 : 0;
}
