import {
  FORMATS,
  isAbsoluteHttpUrl,
  iconUrlScheme,
  isIconUrl,
  isEvmAddress,
  isHexBytes,
  isHexQuantity,
  isIsin,
  isRfc3339DateTime,
  isUrl,
  luhnValid,
  parseRfc3339,
} from '../../src/harness/formats';
import { randomAddress } from '../../src/harness/hex';

const NON_STRINGS: unknown[] = [undefined, null, 0, 1, true, {}, [], ['0x0']];

describe('randomAddress', () => {
  test('gives well-formed addresses, none twice, across many refills of its pool', () => {
    const seen = new Set<string>();
    for (let k = 0; k < 2000; k++) seen.add(randomAddress());
    expect(seen.size).toBe(2000);
    for (const a of seen) expect(a).toMatch(/^0x[0-9a-f]{40}$/);
  });
});

describe('isIsin (ISO 6166)', () => {
  test.each([
    ['US0378331005', 'Apple'],
    ['US5949181045', 'Microsoft'],
    ['US88160R1014', 'Tesla (letter in the NSIN)'],
    ['GB0002634946', 'BAE Systems'],
    ['AU0000XVGZA3', 'Treasury Corp of Victoria (letters near the end)'],
    ['US02079K3059', 'Alphabet class A'],
    ['IE00B4BNMY34', 'Accenture'],
    ['DE000BAY0017', 'Bayer'],
    ['US30303M1027', 'Meta Platforms'],
    ['US0231351067', 'Amazon'],
    ['XS0000000009', 'non-country prefix with a valid check digit'],
  ])('%s is valid (%s)', (isin) => {
    expect(isIsin(isin)).toBe(true);
  });

  test.each([
    ['US0378331006', 'wrong check digit'],
    ['US0378331004', 'wrong check digit'],
    ['US5949181046', 'wrong check digit'],
    ['US88160R1015', 'wrong check digit'],
    ['GB0002634947', 'wrong check digit'],
    ['us0378331005', 'lowercase prefix'],
    ['US88160r1014', 'lowercase letter in the NSIN'],
    ['US037833100', 'too short'],
    ['US03783310055', 'too long'],
    ['1S0378331005', 'prefix must be letters'],
    ['U10378331005', 'prefix must be letters'],
    ['US037833100A', 'check digit must be a digit'],
    [' US0378331005', 'leading space'],
    ['US0378331005 ', 'trailing space'],
    ['US-378331005', 'punctuation'],
    ['US0378331005\n', 'trailing newline'],
    ['', 'empty'],
  ])('%j is invalid (%s)', (isin) => {
    expect(isIsin(isin)).toBe(false);
  });

  test('a transposition of adjacent digits is caught', () => {
    expect(isIsin('US0378313005')).toBe(false);
  });

  test.each(NON_STRINGS)('non-string %p is invalid', (v) => {
    expect(isIsin(v)).toBe(false);
  });

  test('luhnValid on plain digit strings', () => {
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
    expect(luhnValid('0')).toBe(true);
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('12a')).toBe(false);
  });
});

describe('isEvmAddress (0x + 40 hex, EIP-55 when mixed case)', () => {
  // EIP-55's own test vectors.
  const CHECKSUMMED = [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];
  const ALL_CAPS = ['0x52908400098527886E0F7030069857D2E4169EE7', '0x8617E340B3D01FA5F11F306F4090FD50E238070D'];
  const ALL_LOWER = ['0xde709f2102306220921060314715629080e2fb77', '0x27b1fdb04752bbc536007a920d24acb045561c26'];

  test.each([...CHECKSUMMED, ...ALL_CAPS, ...ALL_LOWER])('%s is valid', (a) => {
    expect(isEvmAddress(a)).toBe(true);
  });

  test.each(CHECKSUMMED)('%s lowercased and uppercased stay valid', (a) => {
    expect(isEvmAddress(a.toLowerCase())).toBe(true);
    expect(isEvmAddress('0x' + a.slice(2).toUpperCase())).toBe(true);
  });

  test.each([
    ['0x0000000000000000000000000000000000000000', 'zero address'],
    ['0x1234567890123456789012345678901234567890', 'digits only'],
  ])('%s is valid (%s)', (a) => {
    expect(isEvmAddress(a)).toBe(true);
  });

  test.each([
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', 'last letter case flipped: bad checksum'],
    ['0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'second letter case flipped: bad checksum'],
    ['0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9adb', 'bad checksum'],
    ['0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', 'uppercase 0X prefix'],
    ['5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', 'no prefix'],
    ['0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae', '39 digits'],
    ['0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed0', '41 digits'],
    ['0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg', 'non-hex digit'],
    ['0x', 'empty body'],
    [' 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', 'leading space'],
    ['0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed\n', 'trailing newline'],
    ['0x' + '00'.repeat(32), 'a 32-byte value is not an address'],
  ])('%j is invalid (%s)', (a) => {
    expect(isEvmAddress(a)).toBe(false);
  });

  test.each(NON_STRINGS)('non-string %p is invalid', (v) => {
    expect(isEvmAddress(v)).toBe(false);
  });
});

describe('isHexQuantity', () => {
  test.each(['0x0', '0x1', '0xa', '0x10', '0x1a2b', '0xffffffffffffffffffffffffffffffff', '0x5208'])('%s is valid', (q) => expect(isHexQuantity(q)).toBe(true));
  test.each([
    ['0x', 'empty (zero is 0x0)'],
    ['0x00', 'leading zero'],
    ['0x01', 'leading zero'],
    ['0x0a', 'leading zero'],
    ['0xA', 'uppercase digit'],
    ['0X1', 'uppercase prefix'],
    ['1', 'no prefix'],
    ['0x-1', 'sign'],
    ['0xg', 'non-hex'],
    ['0x 1', 'space'],
    ['0x1\n', 'trailing newline'],
    ['', 'empty string'],
  ])('%j is invalid (%s)', (q) => expect(isHexQuantity(q)).toBe(false));
  test.each([...NON_STRINGS, 21000, 0n])('non-string %p is invalid', (v) => {
    expect(isHexQuantity(v)).toBe(false);
  });
});

describe('isHexBytes', () => {
  test.each(['0x', '0x00', '0x0000', '0xdeadbeef', '0x6080604052', '0x' + 'ab'.repeat(1000)])('%s is valid', (b) => expect(isHexBytes(b)).toBe(true));
  test.each([
    ['0x0', 'odd length'],
    ['0x123', 'odd length'],
    ['0xDEADBEEF', 'uppercase'],
    ['0xdeadbeeF', 'mixed case'],
    ['0X00', 'uppercase prefix'],
    ['00', 'no prefix'],
    ['', 'empty string'],
    ['0xzz', 'non-hex'],
    ['0x00 ', 'trailing space'],
  ])('%j is invalid (%s)', (b) => expect(isHexBytes(b)).toBe(false));
  test.each(NON_STRINGS)('non-string %p is invalid', (v) => {
    expect(isHexBytes(v)).toBe(false);
  });
});

describe('isRfc3339DateTime / parseRfc3339', () => {
  test.each([
    ['2024-05-01T13:30:00Z', '2024-05-01T13:30:00.000Z'],
    ['2024-05-01t13:30:00z', '2024-05-01T13:30:00.000Z'],
    ['2024-05-01T13:30:00.5Z', '2024-05-01T13:30:00.500Z'],
    ['2024-05-01T13:30:00.123456789Z', '2024-05-01T13:30:00.123Z'],
    ['2024-05-01T13:30:00+02:00', '2024-05-01T11:30:00.000Z'],
    ['2024-05-01T13:30:00-05:30', '2024-05-01T19:00:00.000Z'],
    ['2024-05-01T00:30:00+01:00', '2024-04-30T23:30:00.000Z'],
    ['2024-05-01T13:30:00-00:00', '2024-05-01T13:30:00.000Z'],
    ['2024-05-01T13:30:00+23:59', '2024-04-30T13:31:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000Z'],
    ['2023-12-31T23:59:59.999Z', '2023-12-31T23:59:59.999Z'],
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['0099-06-15T12:00:00Z', '0099-06-15T12:00:00.000Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
    // Leap seconds: only at 23:59:60 UTC; the Date is the following 00:00:00 UTC.
    ['1998-12-31T23:59:60Z', '1999-01-01T00:00:00.000Z'],
    ['2016-12-31T23:59:60.5Z', '1999-01-01T00:00:00.000Z'.replace('1999', '2017').replace('.000', '.500')],
    ['1998-12-31T15:59:60.123-08:00', '1999-01-01T00:00:00.123Z'],
    ['2017-01-01T00:59:60+01:00', '2017-01-01T00:00:00.000Z'],
  ])('%s is valid and parses to %s', (s, iso) => {
    expect(isRfc3339DateTime(s)).toBe(true);
    expect(parseRfc3339(s)?.toISOString()).toBe(iso);
  });

  test.each([
    ['2024-05-01T13:30:00', 'no offset'],
    ['2024-05-01 13:30:00Z', 'space separator'],
    ['2024-05-01', 'date only'],
    ['13:30:00Z', 'time only'],
    ['2024-02-30T00:00:00Z', 'February 30'],
    ['2023-02-29T00:00:00Z', 'February 29 of a common year'],
    ['1900-02-29T00:00:00Z', 'February 29 of a century that is not a leap year'],
    ['2024-04-31T00:00:00Z', 'April 31'],
    ['2024-06-31T00:00:00Z', 'June 31'],
    ['2024-09-31T00:00:00Z', 'September 31'],
    ['2024-11-31T00:00:00Z', 'November 31'],
    ['2024-01-32T00:00:00Z', 'January 32'],
    ['2024-00-10T00:00:00Z', 'month 0'],
    ['2024-13-10T00:00:00Z', 'month 13'],
    ['2024-01-00T00:00:00Z', 'day 0'],
    ['2024-05-01T24:00:00Z', 'hour 24'],
    ['2024-05-01T13:60:00Z', 'minute 60'],
    ['2024-05-01T13:30:61Z', 'second 61'],
    ['1998-12-31T22:59:60Z', 'leap second at the wrong hour'],
    ['1998-12-31T23:58:60Z', 'leap second at the wrong minute'],
    ['1998-12-31T23:59:60+01:00', 'leap second: 22:59 UTC'],
    ['2024-05-01T13:30:00+24:00', 'offset hour 24'],
    ['2024-05-01T13:30:00+02:60', 'offset minute 60'],
    ['2024-05-01T13:30:00+0200', 'offset without colon'],
    ['2024-05-01T13:30:00+02', 'offset without minutes'],
    ['2024-05-01T13:30:00.Z', 'empty fraction'],
    ['2024-05-01T13:30:00,5Z', 'comma fraction'],
    ['2024-05-01T13:30Z', 'no seconds'],
    ['24-05-01T13:30:00Z', 'two-digit year'],
    ['+2024-05-01T13:30:00Z', 'signed year'],
    ['2024-5-1T13:30:00Z', 'unpadded month/day'],
    ['2024-05-01T1:30:00Z', 'unpadded hour'],
    ['2024-05-01T13:30:00ZZ', 'double Z'],
    [' 2024-05-01T13:30:00Z', 'leading space'],
    ['2024-05-01T13:30:00Z\n', 'trailing newline'],
    ['2024-05-01T13:30:00UTC', 'named zone'],
    ['2024-05-01T13:30:00\u0660Z', 'non-ASCII digit'],
    ['١٩٩٨-12-31T23:59:59Z', 'non-ASCII digits in the year'],
    ['1714570200', 'epoch seconds'],
    ['', 'empty'],
  ])('%j is invalid (%s)', (s) => {
    expect(isRfc3339DateTime(s)).toBe(false);
    expect(parseRfc3339(s)).toBeUndefined();
  });

  test.each([...NON_STRINGS, new Date(0), 1714570200])('non-string %p is invalid', (v) => {
    expect(isRfc3339DateTime(v)).toBe(false);
    expect(parseRfc3339(v)).toBeUndefined();
  });

  test('parse is consistent with Date.parse on ordinary values', () => {
    for (const s of ['2024-05-01T13:30:00.250+05:45', '1999-12-31T23:59:59-12:00', '2038-01-19T03:14:08Z']) {
      expect(parseRfc3339(s)!.getTime()).toBe(Date.parse(s));
    }
  });
});

describe('isAbsoluteHttpUrl', () => {
  test.each([
    'https://example.com/icons/aapl.png',
    'http://example.com',
    'https://example.com:8443/a/b?c=d#e',
    'https://sub.example.co.uk/x.svg',
    'HTTPS://EXAMPLE.COM/',
    'http://127.0.0.1:8080/icon',
    'http://[::1]/icon',
    'https://example.com/path%20with%20escapes.png',
    'https://user@example.com/',
  ])('%s is valid', (u) => expect(isAbsoluteHttpUrl(u)).toBe(true));

  test.each([
    ['/icons/aapl.png', 'relative'],
    ['//example.com/a.png', 'scheme-relative'],
    ['example.com/a.png', 'no scheme'],
    ['ftp://example.com/a.png', 'not http'],
    ['data:image/png;base64,AAAA', 'data URL'],
    ['javascript:alert(1)', 'javascript URL'],
    ['file:///etc/passwd', 'file URL'],
    ['https://', 'no host'],
    ['http:example.com', 'no slashes'],
    ['https:///path', 'empty host'],
    ['https://exa mple.com/', 'space in host'],
    ['https://example.com/a b.png', 'space in path'],
    [' https://example.com/', 'leading space'],
    ['https://example.com/\n', 'trailing newline'],
    ['https://example.com\t/', 'tab'],
    ['https://exa[mple.com/', 'invalid host'],
    ['https://example.com\\icon.png', 'backslash'],
    ['https:\\\\example.com/', 'backslashes for slashes'],
    ['https://?q=1', 'empty host before query'],
    ['', 'empty'],
  ])('%j is invalid (%s)', (u) => expect(isAbsoluteHttpUrl(u)).toBe(false));

  test.each(NON_STRINGS)('non-string %p is invalid', (v) => {
    expect(isAbsoluteHttpUrl(v)).toBe(false);
  });
});

describe('iconUrlScheme', () => {
  test.each([
    ['https://example.com/icons/aapl.png', 'https'],
    ['HTTPS://EXAMPLE.COM/a.png', 'https'],
    ['http://example.com/a.png', 'http'],
    ['ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi', 'ipfs'],
    ['ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/readme', 'ipfs'],
    ['IPFS://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG', 'ipfs'],
    ['ipns://k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8/a.svg', 'ipns'],
    ['ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U', 'ar'],
    ['data:image/png;base64,iVBORw0KGgo=', 'data'],
    ['data:image/svg+xml;charset=utf-8,%3Csvg%2F%3E', 'data'],
    ['data:image/webp,AAAA', 'data'],
  ])('%s locates an icon (%s)', (u, scheme) => {
    expect(iconUrlScheme(u)).toBe(scheme);
    expect(isIconUrl(u)).toBe(true);
  });

  test.each([
    ['javascript:alert(1)', 'code, not a resource'],
    ['JavaScript:alert(1)', 'code, any case'],
    ['vbscript:msgbox(1)', 'code'],
    ['<img src="https://example.com/a.png">', 'markup'],
    ['https://example.com/a.png"><script>alert(1)</script>', 'markup after a URL'],
    ['data:text/html;base64,PHNjcmlwdD4=', 'data that is no image'],
    ['data:image/svg+xml,<svg onload="alert(1)"/>', 'raw markup in a data URL'],
    ['data:image/png;base64,', 'no data'],
    ['data:,hello', 'no media type'],
    ['ftp://example.com/a.png', 'no client loads ftp'],
    ['file:///etc/icon.png', "the server's own disk"],
    ['ipfs://', 'no content id'],
    ['ipfs:///x', 'empty content id'],
    ['ar://', 'no transaction'],
    ['/icons/a.png', 'relative'],
    ['ipfs://Qm abc', 'whitespace'],
    ['https://example.com\\a.png', 'backslash'],
    ['', 'empty'],
  ])('%j is no icon URL (%s)', (u) => {
    expect(iconUrlScheme(u)).toBeUndefined();
    expect(isIconUrl(u)).toBe(false);
  });

  test.each(NON_STRINGS)('non-string %p is no icon URL', (v) => expect(isIconUrl(v)).toBe(false));
});

describe('isUrl (2.1 icon_url: URL)', () => {
  // The WHATWG URL Standard's valid URL strings (RFC 3987 IRIs) hold non-ASCII code points as they are.
  test.each([
    'https://cdn.example.com/logos/aapl.png',
    'https://cdn.example.com/logos/Nestl%C3%A9.png',
    'https://cdn.example.com/logos/Nestlé.png',
    'https://例え.jp/logos/l’oréal.svg',
    'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/logo.png',
    'data:image/png;base64,iVBORw0KGgo=',
  ])('%s is a URL', (s) => expect(isUrl(s)).toBe(true));
  test.each([
    'https://cdn.example.com/logos/Berkshire Hathaway.png',
    'https://cdn.example.com/a|b.png',
    'https://cdn.example.com/<b>.png',
    'https://cdn.example.com/\u0085.png',
    'https://cdn.example.com/\ud800.png',
    'https://cdn.example.com/\ufffe.png',
    'https://cdn.example.com/\ufdd0.png',
    '/icons/aapl.png',
    'icons/aapl.png',
    '',
    '<img src="https://icons.example/token.svg">',
  ])('%p is no URL', (s) => expect(isUrl(s)).toBe(false));
  test.each(NON_STRINGS)('non-string %p is no URL', (v) => expect(isUrl(v)).toBe(false));
});

describe('FORMATS registry', () => {
  test('names the formats the schemas use, each backed by the tested function', () => {
    expect(Object.keys(FORMATS).sort()).toEqual(['date-time', 'evm-address', 'hex-bytes', 'hex-quantity', 'http-url', 'icon-url', 'isin', 'url'].sort());
    expect(FORMATS['isin']).toBe(isIsin);
    expect(FORMATS['evm-address']).toBe(isEvmAddress);
    expect(FORMATS['hex-quantity']).toBe(isHexQuantity);
    expect(FORMATS['hex-bytes']).toBe(isHexBytes);
    expect(FORMATS['date-time']).toBe(isRfc3339DateTime);
    expect(FORMATS['http-url']).toBe(isAbsoluteHttpUrl);
    expect(FORMATS['icon-url']).toBe(isIconUrl);
    expect(FORMATS['url']).toBe(isUrl);
    expect(Object.isFrozen(FORMATS)).toBe(true);
  });
});
