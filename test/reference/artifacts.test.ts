// Start-up never runs solc; this keeps the committed artifacts honest instead.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { toFunctionSelector, type AbiFunction } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { SIGNER_ADDRESS, SIGNER_KEY } from '../../src/reference';
import { artifacts, feedAbi, tokenAbi } from '../../src/reference/contracts/abi';
import { CATALOG } from '../../src/reference/contracts/catalog';
import { isValidIsin } from './helpers';

describe('reference contracts', () => {
  test('artifacts.json matches a fresh compile of the .sol sources', () => {
    // A child process: loading soljson inside jest's module registry is several times slower.
    const out = spawnSync(process.execPath, ['bin/run-ts.js', 'src/reference/contracts/build.ts', '--check'], {
      cwd: path.join(__dirname, '..', '..'),
      encoding: 'utf8',
      timeout: 50_000,
    });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
  }, 55_000);

  test.each([
    ['TokenizedEquity', tokenAbi],
    ['PriceFeed', feedAbi],
  ] as const)('the typed ABI of %s agrees with the compiled one', (name, abi) => {
    const compiled = (artifacts.contracts[name].abi as AbiFunction[]).filter((e) => e.type === 'function');
    const signatures = new Map(compiled.map((f) => [toFunctionSelector(f), f]));
    for (const f of (abi as readonly { type: string }[]).filter((e): e is AbiFunction => e.type === 'function')) {
      const match = signatures.get(toFunctionSelector(f));
      expect(match?.name).toBe(f.name);
      expect(match?.outputs.map((o) => o.type)).toEqual(f.outputs.map((o) => o.type));
    }
  });

  test('the catalogue lists at least 6 equities with valid, distinct ISINs and symbols', () => {
    expect(CATALOG.length).toBeGreaterThanOrEqual(6);
    for (const e of CATALOG) expect([e.symbol, isValidIsin(e.isin)]).toEqual([e.symbol, true]);
    expect(new Set(CATALOG.map((e) => e.isin)).size).toBe(CATALOG.length);
    expect(new Set(CATALOG.map((e) => e.symbol)).size).toBe(CATALOG.length);
    expect(new Set(CATALOG.map((e) => e.decimals)).size).toBeGreaterThan(1);
  });

  test('the ISIN validator rejects a wrong check digit', () => {
    expect(isValidIsin('US0378331005')).toBe(true);
    expect(isValidIsin('US0378331006')).toBe(false);
  });

  test('SIGNER_ADDRESS is the address of SIGNER_KEY', () => {
    expect(privateKeyToAddress(SIGNER_KEY)).toBe(SIGNER_ADDRESS);
  });
});
