/**
 * A real SMTP server on 127.0.0.1 (smtp-server) that keeps every message it accepts, for tests to
 * assert what the platform mailed: envelope, headers and body as received on the wire (parsed by
 * nodemailer's own MIME reader only as far as a test needs: headers, text part, attachments).
 * `refuse` makes it answer the next messages with a permanent 550, like a relay that rejects them.
 */
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface CapturedMail {
  from: string;
  to: string[];
  /** The whole message as it arrived (headers and MIME body). */
  raw: string;
  headers: Map<string, string>;
  subject: string;
  messageId: string;
}

export interface MailPart {
  contentType: string;
  filename: string | null;
  /** The decoded content (7bit or base64 transfer encodings: what the mail service writes). */
  content: string;
}

/** The leaf parts of a captured message, decoded: its text body first, then its attachments. */
export function partsOf(raw: string): MailPart[] {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const body = rest.join('\r\n\r\n');
  const headers = headersOf(`${head}\r\n\r\n`);
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    return body.split(`--${boundary}`).slice(1).filter((p) => !p.startsWith('--')).flatMap((p) => partsOf(p.replace(/^\r?\n/, '')));
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding !== 'base64' && encoding !== '7bit') throw new Error(`test SMTP: ${encoding} parts are not decoded here`);
  const content = encoding === 'base64' ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8') : body.replace(/\r?\n$/, '');
  const filename = /filename="?([^";]+)"?/i.exec(headers.get('content-disposition') ?? '')?.[1] ?? null;
  return [{ contentType: type.split(';')[0]!.trim().toLowerCase(), filename, content }];
}

export interface SmtpCapture {
  url: string;
  port: number;
  messages: CapturedMail[];
  /** Answer every next message with 550 and this text (null: accept again). */
  refuse(reason: string | null): void;
  waitFor(count: number, timeoutMs?: number): Promise<CapturedMail[]>;
  close(): Promise<void>;
}

/** Unfolds RFC 5322 headers of a raw message into lower-case name → value (first occurrence). */
function headersOf(raw: string): Map<string, string> {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? '';
  const out = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !out.has(line.slice(0, i).toLowerCase())) out.set(line.slice(0, i).toLowerCase(), line.slice(i + 1).trim());
  }
  return out;
}

export async function startSmtpCapture(): Promise<SmtpCapture> {
  const messages: CapturedMail[] = [];
  let refusal: string | null = null;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refusal !== null) {
          const err = Object.assign(new Error(refusal), { responseCode: 550 });
          callback(err);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const headers = headersOf(raw);
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw, headers,
          subject: headers.get('subject') ?? '', messageId: headers.get('message-id') ?? '',
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`, port, messages,
    refuse(reason) { refusal = reason; },
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`the SMTP server got ${messages.length} messages, expected ${count}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
