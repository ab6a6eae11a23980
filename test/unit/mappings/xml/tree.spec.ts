import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readTree, readTreeViaDom } from '../../../../mappings/xml/tree.ts';
import { MappingError } from '../../../../mappings/index.ts';
import { CORPUS, corpusFiles } from '../support/corpus.ts';

const mustang = join(CORPUS, 'mustangproject/validator/src/test/resources');
const files = [
  ...corpusFiles('peppol-bis-invoice-3/rules/examples'),
  ...corpusFiles('eInvoicing-EN16931/ubl/examples'),
  ...corpusFiles('eInvoicing-EN16931/cii/examples'),
  ...corpusFiles('eInvoicing-EN16931/test/testfiles'),
  ...readdirSync(mustang).filter((f) => f.endsWith('.xml')).map((f) => join(mustang, f)),
];

describe('fast tree scanner equals the libxml2 DOM tree', () => {
  it.each(files.map((f) => [f.split('/').slice(-2).join('/'), f]))('%s', (_n, file) => {
    const bytes = readFileSync(file);
    expect(readTree(bytes)).toEqual(readTreeViaDom(bytes));
  });

  it('handles CDATA, character references, CRLF, attribute whitespace and namespace scopes', () => {
    const xml = '<?xml version="1.0"?>\r\n<a:r xmlns:a="urn:a" xmlns="urn:d" k="x\ty"><b>1 &amp; 2 &#x20AC; &#65;</b><![CDATA[<raw>]]><c xmlns="urn:e"><d/></c>\r\n<a:e a:q="v"/></a:r>';
    expect(readTree(xml)).toEqual(readTreeViaDom(xml));
    const t = readTree(xml);
    expect(t.kids.map((k) => [k.name, k.ns])).toEqual([['b', 'urn:d'], ['c', 'urn:e'], ['e', 'urn:a']]);
    expect(t.kids[0]!.text).toBe('1 & 2 € A');
  });

  it('falls back to the DOM for a DOCTYPE or a non-UTF-8 encoding, and never expands entities', () => {
    const latin = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><r>caf\xe9</r>', 'latin1');
    expect(readTree(latin).text).toBe('café');
    const xxe = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/hostname">]><r>&e;</r>';
    let text = '';
    try { text = readTree(xxe).text; } catch (e) { expect(e).toBeInstanceOf(MappingError); }
    expect(text).toBe('');
  });
});
