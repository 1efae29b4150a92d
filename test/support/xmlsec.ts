/**
 * An independent XML-DSig verifier: xmlsec1 (Debian's xmlsec1 package, installed by .ci/run),
 * so a signature is checked by code other than the xml-crypto that made it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type XmlsecVerdict = { valid: boolean; output: string };

/**
 * `xmlsec1 --verify` of the document's ds:Signature, trusting `certificatePem` (self-signed test
 * certificates have no chain). XAdES references the SignedProperties by its Id attribute.
 */
export function verifyWithXmlsec1(xml: string | Buffer, certificatePem: string): Promise<XmlsecVerdict> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'xmlsec-'));
  writeFileSync(path.join(dir, 'signed.xml'), xml);
  writeFileSync(path.join(dir, 'trusted.pem'), certificatePem);
  const args = ['--verify', '--trusted-pem', path.join(dir, 'trusted.pem'), '--id-attr:Id', 'SignedProperties', path.join(dir, 'signed.xml')];
  return new Promise((resolve, reject) => {
    execFile('xmlsec1', args, { timeout: 30_000 }, (error, stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      const output = `${stdout}${stderr}`;
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new Error('xmlsec1 is required to verify signatures independently: apt-get install -y xmlsec1'));
        return;
      }
      resolve({ valid: !error && /^OK$/m.test(output), output });
    });
  });
}
