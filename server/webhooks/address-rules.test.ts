/** The server-side request forgery corpus: every way to name a network of the service's own, refused; public addresses taken. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressRefusal, resolvedRefusal, urlRefusal } from './address-rules.js';

const REFUSED = [
  'http://127.0.0.1/hook',
  'http://127.1/',
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://0x7f.0.0.1/',
  'http://0/',
  'http://0.0.0.0:8080/',
  'http://[::1]/',
  'http://[::]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[0:0:0:0:0:ffff:a9fe:a9fe]/',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fd00:ec2::254]/',
  'http://100.100.100.200/',
  'http://10.0.0.1/',
  'http://172.16.5.4/',
  'http://192.168.1.1/',
  'http://[fe80::1]/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
  'http://localhost:3000/',
  'http://api.localhost/',
  'http://user:secret@example.com/hook',
  'https://:secret@example.com/hook',
  'ftp://example.com/',
  'file:///etc/passwd',
  'gopher://example.com/',
  'not a url',
];

describe('webhook addresses', () => {
  it('refuses every form of a loopback, private, link-local, unique-local, metadata or special address, credentials and other schemes', () => {
    for (const url of REFUSED) assert.ok(urlRefusal(url), `${url} was taken`);
  });

  it('takes public hosts, by name (checked where it resolves) and by address', () => {
    for (const url of [
      'https://hooks.example.com/workspace',
      'http://93.184.216.34:8080/in',
      'https://[2606:2800:220:1:248:1893:25c8:1946]/',
    ]) {
      assert.equal(urlRefusal(url), undefined, url);
    }
  });

  it('refuses a name that resolves to an address inside, even beside a public one', () => {
    assert.match(resolvedRefusal('rebind.example', ['93.184.216.34', '127.0.0.1'])!, /resolves to 127\.0\.0\.1: a loopback address/);
    assert.match(resolvedRefusal('nothing.example', [])!, /resolves to no address/);
    assert.equal(resolvedRefusal('hooks.example.com', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']), undefined);
  });

  it('lets a development setup (WEBHOOK_ALLOW_PRIVATE) reach loopback and private addresses, never the unspecified one', () => {
    const allowPrivate = { allowPrivate: true };
    assert.equal(urlRefusal('http://127.0.0.1:9000/', allowPrivate), undefined);
    assert.equal(urlRefusal('http://localhost:9000/', allowPrivate), undefined);
    assert.equal(addressRefusal('192.168.1.20', allowPrivate), undefined);
    assert.ok(addressRefusal('0.0.0.0', allowPrivate));
    assert.ok(urlRefusal('http://user:pw@127.0.0.1/', allowPrivate), 'credentials stay refused');
  });
});
