/**
 * Deprecation of an operation (spec, Versioning §4): a contract whose HTTP binding carries
 * `deprecated: {sunset, link}` answers with `Deprecation: true`, `Sunset: <HTTP date>` and
 * `Link: <link>; rel="deprecation"`, and is flagged `deprecated: true` in the OpenAPI document.
 */
import type { ServerResponse } from 'node:http';
import type { Deprecation, HttpBinding } from '../shared/contract.ts';

/** The response headers of a deprecated operation; none for a current one. */
export function deprecationHeaders(deprecated: Deprecation | undefined): Record<string, string> {
  if (!deprecated) return {};
  const sunset = new Date(deprecated.sunset);
  if (Number.isNaN(sunset.getTime())) throw new Error(`Deprecation sunset '${deprecated.sunset}' is not an ISO 8601 date`);
  return {
    Deprecation: 'true',
    // RFC 8594: an HTTP-date (IMF-fixdate), which is what toUTCString() produces.
    Sunset: sunset.toUTCString(),
    Link: `<${deprecated.link}>; rel="deprecation"`,
  };
}

/** Sets them on the response (before it is written: they then ride on success and error answers alike). */
export function applyDeprecationHeaders(res: ServerResponse, binding: HttpBinding | undefined): void {
  for (const [name, value] of Object.entries(deprecationHeaders(binding?.deprecated))) {
    if (name === 'Link' && res.hasHeader('Link')) res.appendHeader('Link', value);
    else res.setHeader(name, value);
  }
}

/** The OpenAPI members of an operation: `deprecated: true` and where the sunset is documented. */
export function deprecationOpenApi(deprecated: Deprecation | undefined): Record<string, unknown> {
  if (!deprecated) return {};
  return { deprecated: true, 'x-sunset': new Date(deprecated.sunset).toISOString().slice(0, 10), externalDocs: { description: 'Deprecation notice and replacement', url: deprecated.link } };
}
