/**
 * The AS4 dumps of the transport corpus are HTTP (or MIME) headers, a blank line, then the body:
 * this splits one into the Content-Type a receiver would see and the body bytes.
 */
export function splitDump(file: Buffer): { contentType: string; body: Buffer } {
  const crlf = file.indexOf('\r\n\r\n');
  const lf = file.indexOf('\n\n');
  const [end, skip] = crlf >= 0 && (lf < 0 || crlf < lf) ? [crlf, 4] : [lf, 2];
  const head = file.subarray(0, end).toString('latin1').replace(/\r?\n[ \t]+/g, ' ');
  const contentType = /^content-type:\s*(.+)$/im.exec(head)![1]!.trim();
  return { contentType, body: file.subarray(end + skip) };
}
