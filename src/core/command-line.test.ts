import { it } from 'node:test';
import assert from 'node:assert/strict';
import { splitCommandLine } from './command-line.js';

it('splits a command line like a shell, without expanding anything', () => {
  assert.deepEqual(splitCommandLine('node  server.js --port 3'), ['node', 'server.js', '--port', '3']);
  assert.deepEqual(splitCommandLine(`npx -y "@scope/pkg@1.0" 'a b' c\\ d "x\\"y" $HOME`), ['npx', '-y', '@scope/pkg@1.0', 'a b', 'c d', 'x"y', '$HOME']);
  assert.deepEqual(splitCommandLine(`a ''`), ['a', '']);
  assert.deepEqual(splitCommandLine('   '), { error: 'empty command' });
  assert.deepEqual(splitCommandLine(`a 'b`), { error: 'unterminated single quote' });
  assert.deepEqual(splitCommandLine('a "b'), { error: 'unterminated double quote' });
});
