export default async function globalTeardown(): Promise<void> {
  const stops = (globalThis as { __einvStops?: Array<() => Promise<void>> }).__einvStops ?? [];
  for (const stop of stops.reverse()) await stop();
}
