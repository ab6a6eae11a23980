/**
 * A dispatcher replica as its own process, for the crash test: the real app (services/app.ts) with
 * only the outbox dispatcher (events) and the webhook worker (webhooks), on DATABASE_URL.
 *
 *   DATABASE_URL=… node test/support/dispatcher-process.ts
 */
import { createApp } from '../../services/app.ts';

const app = await createApp({
  services: ['events', 'webhooks'],
  databaseUrl: process.env.DATABASE_URL!,
  broker: { logLevel: 'warn', skipProcessEventRegistration: true },
});
console.log('dispatcher ready');
process.once('SIGTERM', () => {
  void app.stop().then(() => process.exit(0), () => process.exit(1));
});
