import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../../src/cli/output.js';
import { httpUrlOption } from '../../../src/cli/url-option.js';

test('httpUrlOption: http(s) URLs pass as given; a host and port without a scheme is told the http:// it lacks', () => {
  for (const url of ['http://127.0.0.1:8080', 'https://imgtask.example.com/', 'HTTP://[::1]:8080/x'])
    assert.equal(httpUrlOption(url, '--url', 'http://127.0.0.1:8080'), url);
  const refused = (text: string) => {
    try {
      httpUrlOption(text, '--url', 'http://127.0.0.1:8080');
    } catch (err) {
      assert.ok(err instanceof UsageError);
      return err.message;
    }
    assert.fail(`${text} was taken`);
  };
  assert.equal(
    refused('127.0.0.1:8080'),
    '--url 127.0.0.1:8080 needs http:// or https:// in front: use http://127.0.0.1:8080',
  );
  assert.equal(
    refused('localhost:3000/hook?a=1'),
    '--url localhost:3000/hook?a=1 needs http:// or https:// in front: use http://localhost:3000/hook?a=1',
  );
  assert.equal(refused('[::1]:8080'), '--url [::1]:8080 needs http:// or https:// in front: use http://[::1]:8080');
  assert.equal(
    refused('imgtask.example.com'),
    '--url imgtask.example.com needs http:// or https:// in front: use http://imgtask.example.com',
  );
  assert.equal(refused('not a url'), '--url not a url is not a URL (such as http://127.0.0.1:8080)');
  assert.equal(refused('http://'), '--url http:// is not a URL (such as http://127.0.0.1:8080)');
  assert.equal(refused('ws://127.0.0.1:8080'), '--url must be an http or https URL, not ws:');
});
