/**
 * Peppol AS4 MIME packaging and payload protection (peppol-transport.md §1.4, §1.6, §1.7, P5–P8,
 * §10 level 1.3): the corpus's real phase4 dump (binary CTE) and WrongCompression.mime (base64
 * CTE, CompressionType application/rar), synthetic variants of what senders write, limits, a
 * build → parse round trip; gzip → AES-128-GCM → RSA-OAEP and back, tampering, the wrong key, a
 * gzip bomb, and node-forge as an independent RSA-OAEP (SHA-256 / MGF1-SHA-256) implementation.
 */
import { readFileSync } from 'node:fs';
import { createGzip, gzipSync } from 'node:zlib';
import { generateKeyPairSync, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { parseMultipartRelated, buildMultipartRelated, MimeError, type MimePart } from '../../../adapters/peppol-kit/as4/mime.ts';
import { gzipPayload, gunzipPayload, encryptPayload, decryptPayload, wrapKey, unwrapKey, As4PayloadError } from '../../../adapters/peppol-kit/as4/payload.ts';
import { corpusPath } from '../../support/corpus.ts';
import { splitDump } from '../../support/as4-dumps.ts';

function mimeError(fn: () => unknown): MimeError {
  try { fn(); } catch (err) {
    expect(err).toBeInstanceOf(MimeError);
    expect((err as MimeError).code).toBe('EBMS:0007');
    return err as MimeError;
  }
  throw new Error('expected a MimeError');
}

function payloadError(fn: () => unknown, code: 'EBMS:0102' | 'EBMS:0303'): As4PayloadError {
  try { fn(); } catch (err) {
    expect(err).toBeInstanceOf(As4PayloadError);
    expect((err as As4PayloadError).code).toBe(code);
    return err as As4PayloadError;
  }
  throw new Error(`expected As4PayloadError ${code}`);
}

describe('phase4 corpus', () => {
  it('dump-raw.as4out: the SOAP root and one binary attachment named by PartInfo', () => {
    const { contentType, body } = splitDump(readFileSync(corpusPath('peppol-transport/phase4/user-message/dump-raw.as4out')));
    const { root, attachments } = parseMultipartRelated(contentType, body);
    expect(root.contentType).toBe('application/soap+xml');
    expect(root.headers['content-type']).toBe('application/soap+xml;charset=UTF-8');
    const soap = root.body.toString('utf8');
    expect(soap).toMatch(/^(<\?xml[^>]*\?>)?<S12:Envelope /);
    expect(soap).toMatch(/<\/S12:Envelope>$/);
    expect(soap).toContain('<eb:Messaging');
    expect(attachments).toHaveLength(1);
    const att = attachments[0]!;
    const href = /<eb:PartInfo href="cid:([^"]+)"/.exec(soap)![1];
    expect(att.contentId).toBe(href);
    expect(att.contentId).toBe('phase4-att-ff0f8ad5-f982-48ba-b8e2-26997600f496@cid');
    expect(att.contentType).toBe('application/octet-stream');
    expect(att.headers['content-description']).toBe('Attachment');
    // The attachment is IV ‖ ciphertext ‖ tag: the raw bytes between its blank line and the close delimiter.
    const end = body.lastIndexOf('\r\n------=_Part_0_1950117092.1769701143986--');
    const start = body.indexOf('@cid>\r\n\r\n') + '@cid>\r\n\r\n'.length;
    expect(att.body.equals(body.subarray(start, end))).toBe(true);
    expect(att.body.length).toBeGreaterThan(12 + 16);
  });

  it('WrongCompression.mime: base64 attachment decodes; CompressionType application/rar is read for the layer that rejects it', () => {
    const { contentType, body } = splitDump(readFileSync(corpusPath('peppol-transport/phase4/negative/WrongCompression.mime')));
    const { root, attachments } = parseMultipartRelated(contentType, body);
    expect(attachments).toHaveLength(1);
    const att = attachments[0]!;
    expect(att.headers['content-transfer-encoding']).toBe('base64');
    expect(att.contentId).toBe('ph-as4-0026b807-e599-40e2-af67-22f2e6fe4ddd');  // no <> in this file
    const soap = root.body.toString('utf8');
    expect(/<eb:PartInfo href="cid:([^"]+)"/.exec(soap)![1]).toBe(att.contentId);
    const compression = /<eb:Property name="CompressionType">([^<]*)<\/eb:Property>/.exec(soap)?.[1];
    expect(compression).toBe('application/rar');
    expect(compression).not.toBe('application/gzip');
    // The bytes themselves are gzip (1f 8b), so gunzip reads them: only the declared type is wrong,
    // and it is the CompressionType check that answers EBMS:0303 for this vector.
    expect(att.body.subarray(0, 2).toString('hex')).toBe('1f8b');
    expect(gunzipPayload(att.body, 1 << 20).toString('utf8')).toContain('Philip Helger');
    // Damaged or truncated compressed bytes are EBMS:0303 from gunzip itself.
    payloadError(() => gunzipPayload(att.body.subarray(0, att.body.length - 20), 1 << 20), 'EBMS:0303');
    payloadError(() => gunzipPayload(Buffer.from('Rar!\x1a\x07\x00 not gzip', 'latin1'), 1 << 20), 'EBMS:0303');
  });
});

const SOAP = '<S12:Envelope xmlns:S12="http://www.w3.org/2003/05/soap-envelope"><S12:Header/><S12:Body/></S12:Envelope>';
/** Bytes a naive parser trips on: CR/LF, "--" runs, a near-boundary, NUL and high bytes. */
const NASTY = Buffer.concat([
  Buffer.from('\r\n--\r\n----\n--b0und\r\n--b0undaryX\r\n--\n\r\n\r\n', 'latin1'),
  Buffer.from([0, 0xff, 0x0d, 0x0a, 0x2d, 0x2d, 0x0d, 0x0d, 0x0a, 0x0a, 0x80]),
  Buffer.from('\r\n- -b0undary-- not at a line start: x--b0undary--\r\n\n-b0undary\r\n', 'latin1'),
]);

function message(opts: { eol?: string; preamble?: string; epilogue?: string; boundary?: string; attId?: string; rootId?: string; attBody?: Buffer; cte?: string }): Buffer {
  const eol = opts.eol ?? '\r\n';
  const b = opts.boundary ?? 'b0undary';
  const attBody = opts.attBody ?? NASTY;
  const encoded = opts.cte === 'base64' ? Buffer.from(attBody.toString('base64').replace(/.{76}/g, `$&${eol}`), 'latin1') : attBody;
  return Buffer.concat([
    Buffer.from(`${opts.preamble ?? ''}--${b}${eol}Content-Type: application/soap+xml;charset=UTF-8${eol}`
      + `${opts.rootId ? `Content-ID: ${opts.rootId}${eol}` : ''}Content-Transfer-Encoding: binary${eol}${eol}${SOAP}${eol}`
      + `--${b}${eol}Content-Type: application/octet-stream${eol}Content-Transfer-Encoding: ${opts.cte ?? 'binary'}${eol}`
      + `Content-ID: ${opts.attId ?? '<att-1@example.org>'}${eol}${eol}`, 'latin1'),
    encoded,
    Buffer.from(`${eol}--${b}--${eol}${opts.epilogue ?? ''}`, 'latin1'),
  ]);
}

function expectTwoParts(parsed: { root: MimePart; attachments: MimePart[] }, attBody: Buffer = NASTY): void {
  expect(parsed.root.body.toString('utf8')).toBe(SOAP);
  expect(parsed.root.contentType).toBe('application/soap+xml');
  expect(parsed.attachments).toHaveLength(1);
  expect(parsed.attachments[0]!.contentId).toBe('att-1@example.org');
  expect(parsed.attachments[0]!.contentType).toBe('application/octet-stream');
  expect(parsed.attachments[0]!.body.equals(attBody)).toBe(true);
}

describe('parseMultipartRelated, synthetic variants', () => {
  it('quoted and unquoted boundary, with no start', () => {
    expectTwoParts(parseMultipartRelated('multipart/related; boundary="b0undary"; type="application/soap+xml"', message({})));
    expectTwoParts(parseMultipartRelated('Multipart/Related;boundary=b0undary;type=application/soap+xml', message({})));
    const b = '----=_Part_0_1.2';
    expectTwoParts(parseMultipartRelated(`multipart/related; type="application/soap+xml"; boundary=${b}`, message({ boundary: b })));
  });

  it('start names the root, whatever its place', () => {
    const body = message({ rootId: '<root@example.org>' });
    expectTwoParts(parseMultipartRelated('multipart/related; boundary=b0undary; start="<root@example.org>"; start-info="application/soap+xml"', body));
    expectTwoParts(parseMultipartRelated('multipart/related; boundary=b0undary; start=root@example.org', body));
    // the root second: the attachment stays in the attachments
    const swapped = parseMultipartRelated('multipart/related; boundary=b0undary; start="<att-1@example.org>"', body);
    expect(swapped.root.contentId).toBe('att-1@example.org');
    expect(swapped.attachments.map((p) => p.contentId)).toEqual(['root@example.org']);
    mimeError(() => parseMultipartRelated('multipart/related; boundary=b0undary; start="<nobody@example.org>"', body));
  });

  it('LF-only line ends', () => {
    expectTwoParts(parseMultipartRelated('multipart/related; boundary=b0undary', message({ eol: '\n', attBody: Buffer.from('<x>\nline\n--\n</x>') })), Buffer.from('<x>\nline\n--\n</x>'));
  });

  it('Content-ID with and without <>', () => {
    expectTwoParts(parseMultipartRelated('multipart/related; boundary=b0undary', message({ attId: 'att-1@example.org' })));
    expectTwoParts(parseMultipartRelated('multipart/related; boundary=b0undary', message({ attId: ' <att-1@example.org> ' })));
  });

  it('preamble and epilogue', () => {
    const body = message({ preamble: 'This is a multi-part message in MIME format.\r\n--b0undaryNOT\r\n\r\n', epilogue: 'epilogue\r\n--b0undary\r\ntrailing junk' });
    expectTwoParts(parseMultipartRelated('multipart/related; boundary=b0undary', body));
  });

  it('binary bytes with CR/LF and "--" that are not the boundary, and base64 with line breaks', () => {
    const bin = Buffer.concat([randomBytes(4096), NASTY, randomBytes(4096)]);
    expectTwoParts(parseMultipartRelated('multipart/related; boundary=b0undary', message({ attBody: bin })), bin);
    expectTwoParts(parseMultipartRelated('multipart/related; boundary=b0undary', message({ attBody: bin, cte: 'base64' })), bin);
    expectTwoParts(parseMultipartRelated('multipart/related; boundary=b0undary', message({ attBody: bin, cte: 'base64', eol: '\n' })), bin);
  });

  it('a truncated body is a MimeError, at every cut', () => {
    const body = message({});
    for (let cut = 0; cut < body.length - '--\r\n'.length; cut += 7) {
      mimeError(() => parseMultipartRelated('multipart/related; boundary=b0undary', body.subarray(0, cut)));
    }
    mimeError(() => parseMultipartRelated('multipart/related; boundary=b0undary', body.subarray(0, body.lastIndexOf('--\r\n'))));
  });

  it('too many parts, a part over maxBytes, bad base64, an unknown CTE, duplicate Content-IDs, not multipart/related', () => {
    const many = buildMultipartRelated(SOAP, Array.from({ length: 5 }, (_, i) => ({ contentId: `p${i}@x`, contentType: 'application/octet-stream', body: Buffer.from(`part ${i}`) })));
    expect(parseMultipartRelated(many.contentType, many.body, { maxParts: 6 }).attachments).toHaveLength(5);
    expect(mimeError(() => parseMultipartRelated(many.contentType, many.body, { maxParts: 5 })).message).toMatch(/more than 5 parts/);

    const big = buildMultipartRelated(SOAP, [{ contentId: 'big@x', contentType: 'application/octet-stream', body: randomBytes(1025) }]);
    expect(parseMultipartRelated(big.contentType, big.body, { maxBytes: 1025 }).attachments[0]!.body.length).toBe(1025);
    expect(mimeError(() => parseMultipartRelated(big.contentType, big.body, { maxBytes: 1024 })).message).toMatch(/more than 1024 bytes/);

    const ct = 'multipart/related; boundary=b0undary';
    mimeError(() => parseMultipartRelated(ct, Buffer.from(message({ cte: 'base64', attBody: Buffer.from('x') }).toString('latin1').replace('eA==', 'e!A=='), 'latin1')));
    mimeError(() => parseMultipartRelated(ct, message({ cte: 'quoted-printable' })));
    mimeError(() => parseMultipartRelated(ct, message({ rootId: '<att-1@example.org>' })));
    mimeError(() => parseMultipartRelated('application/soap+xml', message({})));
    mimeError(() => parseMultipartRelated('multipart/related; type="application/soap+xml"', message({})));
    mimeError(() => parseMultipartRelated('not a type', message({})));
    mimeError(() => parseMultipartRelated(ct, Buffer.alloc(0)));
    mimeError(() => parseMultipartRelated(ct, Buffer.from('--b0undary\r\nContent-Type: text/xml\r\n<no blank line>\r\n--b0undary--\r\n')));
    mimeError(() => parseMultipartRelated(ct, Buffer.from('--b0undary--\r\n')));
  });
});

describe('buildMultipartRelated', () => {
  it('writes the phase4 shape: SOAP root first, binary attachments with <Content-ID>, a fresh boundary', () => {
    const a = buildMultipartRelated(SOAP, [{ contentId: 'att-1@example.org', contentType: 'application/octet-stream', body: NASTY }]);
    const b = buildMultipartRelated(Buffer.from(SOAP), [{ contentId: 'att-1@example.org', contentType: 'application/octet-stream', body: NASTY }]);
    expect(a.contentType).toMatch(/^multipart\/related; boundary="([^"]+)"; type="application\/soap\+xml"$/);
    expect(a.contentType).not.toBe(b.contentType);
    const text = a.body.toString('latin1');
    expect(text).toContain('Content-Type: application/soap+xml;charset=UTF-8\r\nContent-Transfer-Encoding: binary\r\n\r\n<S12:Envelope');
    expect(text).toContain('Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: binary\r\nContent-ID: <att-1@example.org>\r\n\r\n');
    expect(text).not.toMatch(/Content-Disposition/i);
    expectTwoParts(parseMultipartRelated(a.contentType, a.body));
    expect(() => buildMultipartRelated(SOAP, [{ contentId: 'a\r\nX-Evil: 1', contentType: 'application/octet-stream', body: NASTY }])).toThrow(TypeError);
    expect(() => buildMultipartRelated(SOAP, [{ contentId: 'a@b', contentType: 'application/octet-stream\r\nX-Evil: 1', body: NASTY }])).toThrow(TypeError);
  });

  it('round-trips a 10 MB random attachment byte for byte', () => {
    const payload = randomBytes(10 * 1024 * 1024);
    const built = buildMultipartRelated(SOAP, [{ contentId: '<big@example.org>', contentType: 'application/octet-stream', body: payload }]);
    const parsed = parseMultipartRelated(built.contentType, built.body);
    expect(parsed.root.body.toString('utf8')).toBe(SOAP);
    expect(parsed.attachments).toHaveLength(1);
    expect(parsed.attachments[0]!.contentId).toBe('big@example.org');
    expect(parsed.attachments[0]!.body.equals(payload)).toBe(true);
  });
});

describe('payload: gzip, AES-128-GCM, RSA-OAEP', () => {
  const receiver = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sbd = Buffer.from(`<StandardBusinessDocument>${'<Invoice>é€</Invoice>'.repeat(500)}</StandardBusinessDocument>`, 'utf8');

  function send(plain: Buffer, to: KeyObject) {
    const gz = gzipPayload(plain);
    const { key, cipherBytes } = encryptPayload(gz);
    return { gz, key, cipherBytes, wrapped: wrapKey(key, to) };
  }

  it('round-trips through MIME: gzip → encrypt → wrap → unwrap → decrypt → gunzip', () => {
    const { gz, key, cipherBytes, wrapped } = send(sbd, receiver.publicKey);
    expect(gz.subarray(0, 2).toString('hex')).toBe('1f8b');
    expect(key).toHaveLength(16);
    expect(cipherBytes).toHaveLength(12 + gz.length + 16);  // IV ‖ ciphertext ‖ tag
    expect(wrapped).toHaveLength(256);
    const mime = buildMultipartRelated(SOAP, [{ contentId: 'p@x', contentType: 'application/octet-stream', body: cipherBytes }]);
    const att = parseMultipartRelated(mime.contentType, mime.body).attachments[0]!;
    const gzBack = decryptPayload(att.body, unwrapKey(wrapped, receiver.privateKey));
    expect(gzBack.equals(gz)).toBe(true);
    expect(gunzipPayload(gzBack, 1 << 20).equals(sbd)).toBe(true);
  });

  it('uses a fresh key and IV each time', () => {
    const a = encryptPayload(sbd);
    const b = encryptPayload(sbd);
    expect(a.key.equals(b.key)).toBe(false);
    expect(a.cipherBytes.subarray(0, 12).equals(b.cipherBytes.subarray(0, 12))).toBe(false);
  });

  it('a tampered byte anywhere, a short input or a wrong key is EBMS:0102', () => {
    const { key, cipherBytes } = encryptPayload(gzipPayload(sbd));
    for (const at of [0, 11, 12, cipherBytes.length >> 1, cipherBytes.length - 17, cipherBytes.length - 1]) {
      const bad = Buffer.from(cipherBytes);
      bad[at]! ^= 0x01;
      payloadError(() => decryptPayload(bad, key), 'EBMS:0102');
    }
    payloadError(() => decryptPayload(cipherBytes.subarray(0, 27), key), 'EBMS:0102');
    payloadError(() => decryptPayload(cipherBytes, randomBytes(16)), 'EBMS:0102');
    payloadError(() => decryptPayload(cipherBytes, randomBytes(32)), 'EBMS:0102');
  });

  it('a key wrapped for another key, or a damaged wrapped key, is EBMS:0102', () => {
    const { wrapped } = send(sbd, other.publicKey);
    payloadError(() => unwrapKey(wrapped, receiver.privateKey), 'EBMS:0102');
    const mine = send(sbd, receiver.publicKey).wrapped;
    const bad = Buffer.from(mine);
    bad[100]! ^= 0x80;
    payloadError(() => unwrapKey(bad, receiver.privateKey), 'EBMS:0102');
    payloadError(() => unwrapKey(mine.subarray(1), receiver.privateKey), 'EBMS:0102');
  });

  it('wraps to an X509Certificate too', () => {
    const dump = readFileSync(corpusPath('peppol-transport/phase4/user-message/dump-raw.as4out'), 'latin1');
    const b64 = /<wsse:BinarySecurityToken[^>]*>([^<]+)</.exec(dump)![1]!;
    const cert = new X509Certificate(Buffer.from(b64, 'base64'));
    expect(wrapKey(randomBytes(16), cert)).toHaveLength(256);
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    expect(() => wrapKey(randomBytes(16), ec.publicKey)).toThrow(TypeError);
  });

  it('node-forge (an independent RSA-OAEP) unwraps our key with SHA-256 and MGF1-SHA-256, and we unwrap its', () => {
    const key = randomBytes(16);
    const wrapped = wrapKey(key, receiver.publicKey);
    const forgePriv = forge.pki.privateKeyFromPem(receiver.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
    const unwrapped = forgePriv.decrypt(wrapped.toString('binary'), 'RSA-OAEP', { md: forge.md.sha256.create(), mgf1: { md: forge.md.sha256.create() } });
    expect(Buffer.from(unwrapped, 'binary').equals(key)).toBe(true);
    // …and a SHA-1 MGF1 (rsa-oaep-mgf1p style) reading of the same bytes fails: the MGF1 hash is really SHA-256.
    expect(() => forgePriv.decrypt(wrapped.toString('binary'), 'RSA-OAEP', { md: forge.md.sha256.create(), mgf1: { md: forge.md.sha1.create() } })).toThrow();
    const forgePub = forge.pki.publicKeyFromPem(receiver.publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const fromForge = Buffer.from(forgePub.encrypt(key.toString('binary'), 'RSA-OAEP', { md: forge.md.sha256.create(), mgf1: { md: forge.md.sha256.create() } }), 'binary');
    expect(unwrapKey(fromForge, receiver.privateKey).equals(key)).toBe(true);
  });
});

describe('gunzipPayload cap', () => {
  it('a gzip bomb expanding to 1 GiB is EBMS:0303 with bounded memory', async () => {
    // 1 GiB of zeros through one gzip stream, built in 1 MiB chunks (about 1 MB compressed).
    const gz = createGzip({ level: 9 });
    const out: Buffer[] = [];
    gz.on('data', (c: Buffer) => out.push(c));
    const done = new Promise<void>((resolve, reject) => { gz.on('end', resolve); gz.on('error', reject); });
    const zeros = Buffer.alloc(1 << 20);
    for (let i = 0; i < 1024; i++) {
      if (!gz.write(zeros)) await new Promise((r) => gz.once('drain', r));
    }
    gz.end();
    await done;
    const bomb = Buffer.concat(out);
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);

    const before = process.memoryUsage();
    const err = payloadError(() => gunzipPayload(bomb, 16 * 1024 * 1024), 'EBMS:0303');
    const after = process.memoryUsage();
    expect(err.message).toMatch(/expands past 16777216 bytes/);
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(128 * 1024 * 1024);
    expect(after.rss - before.rss).toBeLessThan(256 * 1024 * 1024);
    // the same bytes under a cap they fit in come back whole
    expect(gunzipPayload(gzipSync(Buffer.alloc(1000)), 1000)).toHaveLength(1000);
    payloadError(() => gunzipPayload(gzipSync(Buffer.alloc(1001)), 1000), 'EBMS:0303');
    payloadError(() => gunzipPayload(Buffer.alloc(0), 1000), 'EBMS:0303');
  }, 60_000);
});
