/**
 * EC and RSA keys and certificates for the signing tests, made by the OpenSSL command line (node-forge
 * writes no EC certificates): a self-signed signer, and a small CA that issues a certificate for a
 * certificate signing request — what ZATCA's CSID endpoints do with an EGS unit's CSR.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyPair { certPem: string; keyPem: string }

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: 'pipe' });

/** A self-signed certificate and its key: `ec` on a named curve (prime256v1, secp256k1) or `rsa`. */
export function selfSigned(cn: string, key: { type: 'ec'; curve: string } | { type: 'rsa' }): KeyPair {
  const dir = mkdtempSync(join(tmpdir(), 'pki-'));
  const newkey = key.type === 'ec' ? ['-newkey', 'ec', '-pkeyopt', `ec_paramgen_curve:${key.curve}`] : ['-newkey', 'rsa:2048'];
  openssl(['req', '-x509', ...newkey, '-nodes', '-subj', `/CN=${cn}/O=Test/C=SA`, '-days', '30', '-keyout', 'key.pem', '-out', 'cert.pem'], dir);
  return { certPem: readFileSync(join(dir, 'cert.pem'), 'utf8'), keyPem: readFileSync(join(dir, 'key.pem'), 'utf8') };
}

/** A CA on secp256k1 (ZATCA's curve) that issues a certificate for a PEM or DER CSR, keeping its subject and extensions. */
export class TestCa {
  readonly ca: KeyPair;
  private serial = 0x1000;
  constructor(cn: string) { this.ca = selfSigned(cn, { type: 'ec', curve: 'secp256k1' }); }

  issue(csr: string | Buffer): string {
    const dir = mkdtempSync(join(tmpdir(), 'ca-'));
    writeFileSync(join(dir, 'ca.pem'), this.ca.certPem);
    writeFileSync(join(dir, 'ca.key'), this.ca.keyPem);
    const pem = typeof csr === 'string' ? csr : `-----BEGIN CERTIFICATE REQUEST-----\n${csr.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE REQUEST-----\n`;
    writeFileSync(join(dir, 'req.csr'), pem);
    openssl(['x509', '-req', '-in', 'req.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', String(++this.serial), '-days', '30', '-sha256', '-copy_extensions', 'copyall', '-out', 'cert.pem'], dir);
    return readFileSync(join(dir, 'cert.pem'), 'utf8');
  }
}
