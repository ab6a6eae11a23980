/**
 * The file-drop example connector: the SDK's contract suite on real temporary folders, and what
 * it writes and reads.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusPath } from '../../support/corpus.ts';
import { describeConnectorContract, memoryHost, sampleMessage } from '../../../adapters/sdk/contract-suite.ts';
import fileDrop from '../../../adapters/file-drop/file-drop.connector.ts';
import type { DirectoryEntry } from '../../../adapters/sdk/index.ts';

const root = mkdtempSync(join(tmpdir(), 'file-drop-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const config = { outboxDir: join(root, 'out'), inboxDir: join(root, 'in'), participants: '9999:file-drop-bob', pollIntervalMs: 1000 };
const bob: DirectoryEntry = { organizationId: 'org_b', companyId: 'comp_b', peppolId: '0208:0123456749', name: 'Bob BV', country: 'BE', documentTypes: ['invoice'] };

/** A corpus UBL invoice addressed to `peppolId` (its buyer's electronic address). */
function invoiceFor(peppolId: string): string {
  const [scheme, value] = peppolId.split(':');
  return readFileSync(corpusPath('peppol-bis-invoice-3', 'rules', 'examples', 'base-example.xml'), 'utf8')
    .replace('<cbc:EndpointID schemeID="0002">FR23342</cbc:EndpointID>', `<cbc:EndpointID schemeID="${scheme}">${value}</cbc:EndpointID>`);
}

describeConnectorContract(fileDrop, {
  known: { peppolId: '9999:file-drop-bob' },
  unknown: { peppolId: '9999:nobody' },
  directory: [bob],
  documentType: 'invoice',
  config,
  receiveTwice: async (host) => {
    const inbox = join(config.inboxDir, 'test');
    writeFileSync(join(inbox, 'twice.xml'), invoiceFor(bob.peppolId!));
    await host.runTimers();
    // The network drops the same file again (it never saw the acknowledgement).
    writeFileSync(join(inbox, 'twice.xml'), invoiceFor(bob.peppolId!));
    await host.runTimers();
  },
});

describe('file-drop', () => {
  it('writes the original bytes of an outbound document under its mode', async () => {
    const host = memoryHost([bob], { config });
    await fileDrop.start(host);
    const msg = sampleMessage({ peppolId: '9999:file-drop-bob' }, 'invoice', 1, true);
    expect(await fileDrop.send(msg, host)).toEqual({ outcome: 'delivered', messageId: `${msg.documentId}.xml` });
    expect(readFileSync(join(config.outboxDir, 'live', `${msg.documentId}.xml`), 'utf8')).toBe('<Invoice/>');
    await expect(fileDrop.send(sampleMessage({ peppolId: '9999:nobody' }, 'invoice'), host)).rejects.toMatchObject({ kind: 'permanent', code: 'FILE_DROP_UNKNOWN_RECIPIENT' });
  });

  it('reads an inbound invoice for a company, acknowledges it by moving it to done/, and sets aside what it cannot use', async () => {
    const host = memoryHost([bob], { config });
    await fileDrop.start(host);
    const inbox = join(config.inboxDir, 'test');
    writeFileSync(join(inbox, 'a.xml'), invoiceFor(bob.peppolId!));
    writeFileSync(join(inbox, 'nobody.xml'), invoiceFor('0208:0999999999'));
    writeFileSync(join(inbox, 'junk.txt'), 'not xml');
    await host.runTimers();
    expect(host.inboxed).toHaveLength(1);
    expect(host.inboxed[0]).toMatchObject({ livemode: false, type: 'invoice', number: 'Snippet1', recipient: { companyId: 'comp_b' }, payload: { syntax: 'ubl-2.1', filename: 'a.xml' } });
    expect(readdirSync(join(inbox, 'done'))).toContain('a.xml');
    expect(readdirSync(join(inbox, 'rejected')).sort()).toEqual(expect.arrayContaining(['junk.txt', 'nobody.xml']));
    expect(existsSync(join(inbox, 'a.xml'))).toBe(false);
  });
});
