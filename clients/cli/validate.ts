/**
 * `einv validate <file>`: the document judged by the API (XSD, EN 16931, Peppol BIS, the country's
 * rules), each finding printed with its rule, where it is (the JSON path for a JSON body, else the
 * XPath) and how to fix it. Exit code 1 when the document is invalid, 2 when it could not be judged.
 */
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { paths } from '../typescript/src/index.ts';
import { describeApiError, UsageError, type CliContext } from './context.ts';

type ValidateBody = NonNullable<paths['/v1/documents/validate']['post']['requestBody']>['content']['application/json'];
type ValidateAnswer = paths['/v1/documents/validate']['post']['responses'][200]['content']['application/json'];

export interface ValidateOptions { country?: string; network?: 'peppol' }

function bodyOf(file: string, options: ValidateOptions): ValidateBody {
  const text = readFileSync(file, 'utf8');
  const where = { ...(options.country ? { country: options.country } : {}), ...(options.network ? { network: options.network } : {}) };
  if (extname(file).toLowerCase() === '.xml') {
    return { format: /CrossIndustryInvoice/.test(text.slice(0, 2048)) ? 'cii-xml' : 'ubl-xml', xml: text, ...where };
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`${basename(file)}: not JSON (${(err as Error).message})`);
  }
  const envelope = json.document ? json : { type: 'invoice', document: json };
  const { type, documentSubtype, selfBilled, document } = envelope as ValidateBody;
  return { format: 'json', type: type ?? 'invoice', ...(documentSubtype !== undefined ? { documentSubtype } : {}), ...(selfBilled !== undefined ? { selfBilled } : {}), ...(document ? { document } : {}), ...where };
}

/** The findings as a person reads them: one block per finding, fatal ones first. */
export function formatFindings(result: ValidateAnswer): string {
  const order = (s: string) => (s === 'fatal' ? 0 : 1);
  const lines = [...result.findings].sort((a, b) => order(a.severity) - order(b.severity)).map((f) => {
    const mark = f.severity === 'fatal' ? '✖ error  ' : '⚠ warning';
    const at = f.path ? `${f.path}  (${f.location})` : f.location;
    const hint = f.jsonHint ?? f.hint;
    return `${mark} ${f.rule}${f.bt ? ` [${f.bt}]` : ''}\n    at   ${at}\n    ${f.message}\n    fix: ${hint}`;
  });
  const fatal = result.findings.filter((f) => f.severity === 'fatal').length;
  const head = result.valid ? `valid (${result.profile}; ${result.packs.join(', ')})` : `INVALID: ${fatal} error(s) (${result.profile}; ${result.packs.join(', ')})`;
  return [head, ...lines].join('\n');
}

export async function validateCommand(ctx: CliContext, file: string, options: ValidateOptions): Promise<number> {
  const { data, error, response } = await ctx.client().POST('/v1/documents/validate', { body: bodyOf(file, options) });
  if (!data) {
    process.stderr.write(`${basename(file)}: cannot be validated: ${describeApiError(error, response.status)}\n`);
    for (const d of (error as { error?: { details?: Array<{ field: string; message: string }> } } | undefined)?.error?.details ?? []) process.stderr.write(`    at   ${d.field}\n    ${d.message}\n`);
    return 2;
  }
  process.stdout.write(`${basename(file)}: ${formatFindings(data)}\n`);
  return data.valid ? 0 : 1;
}
