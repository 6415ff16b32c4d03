import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../../src/config/environment.js';
import { loadConfig } from '../../../src/config/load.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** The loader's message for a config file holding `text`. */
async function messageFor(t: Parameters<typeof tempDir>[0], text: string): Promise<string> {
  const file = join(await tempDir(t), 'imgtask.json');
  await writeFile(file, text);
  try {
    loadConfig({ file, env: {} });
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.message.replace(file, 'imgtask.json');
  }
  assert.fail('the file was taken');
}

test('a config file that is not JSON: the line and column, the reason, and the line with a caret under the spot', async (t) => {
  assert.equal(
    await messageFor(t, '{\n  "webhooks": { "allowPrivateAddresses": true, },\n}\n'),
    [
      'config: imgtask.json is not valid JSON: line 2, column 48: Expected double-quoted property name',
      '    2 |   "webhooks": { "allowPrivateAddresses": true, },',
      '                                                       ^',
    ].join('\n'),
  );
  assert.match(
    await messageFor(t, '{\r\n\t"port": 80\r\n\t"host": "x"\r\n}'),
    /: line 3, column 2: Expected ',' or '}' after property value\n {4}3 \| \t"host": "x"\n {8}\t\^$/,
  );
  assert.match(
    await messageFor(t, '{\n  "port": 80\n\n'),
    /: line 2, column 13: Expected ',' or '}' after property value\n {4}2 \| {3}"port": 80\n/,
    'the input ended too soon: just after its last character',
  );
  assert.match(await messageFor(t, '{\n  "port": \n'), /: line 2, column 10: Unexpected end of JSON input\n/);
  assert.equal(await messageFor(t, '[1]'), 'config: imgtask.json is not valid JSON: the top level must be an object');
});
