// Every flag of a run: its name, environment variable, value and meaning. The one table that
// --help, docs/flags.md and the parser (config.ts) are made from.
/** The defaults of a run, as --help states them. */
export const DEFAULTS = {
  reportDir: 'reports',
  timeoutMs: 10_000,
  deadlineMs: 15 * 60_000,
  concurrency: 16,
  clockSkewSec: 300,
  /** 0.01 ETH: hundreds of 0-value self-transfers and tiny deployments at L2 fees. */
  maxSpendWei: 10n ** 16n,
  /**
   * The embedded reference's blocks: 1.2 s with 200 ms flashblocks, six to a block, as an OP-stack
   * chain may run them. Not Base's 2 s: every wait of a run on a seal (the pre-confirmation pass,
   * the sampling window of two intervals) is shorter, and a block still leaves the pass its
   * timing budget: sends accepted in the first 300 ms after a seal (SEND_MS) leave a look EARLY_MS
   * (900 ms) after them before the next, so a miss can count (timing.ts).
   */
  blockTimeMs: 1200,
  flashblockMs: 200,
} as const;

/** Flag name, its environment variable, and what it takes: the one table --help is made from. */
export const OPTIONS = [
  ['base-url', 'BASE_URL', '<url>', 'REST target {base_url}; omit both URLs to use the embedded reference'],
  ['rpc-url', 'RPC_URL', '<url>', 'JSON-RPC target {rpc_url}'],
  [
    'embedded',
    'EMBEDDED',
    '',
    'judge the embedded reference target (the default outside CI); under CI (CI=true, GITHUB_ACTIONS=true) a run with no URL is exit 2 unless this is given',
  ],
  ['profile', 'RPC_PROFILE', 'public|dedicated', 'node profile: public expects HTTP 403 for eth_getBlockReceipts (default dedicated)'],
  [
    'signer-key',
    'SIGNER_PRIVATE_KEY',
    '<0x…64 hex>',
    'funded key for pre-confirmation checks (sends 0-value self-transfers and tiny deployments); surrounding whitespace is trimmed and a missing 0x added, a recovery phrase is refused',
  ],
  ['max-spend-wei', 'MAX_SPEND_WEI', '<wei>', `cap on what the signer may spend in one run (default ${DEFAULTS.maxSpendWei})`],
  ['report-dir', 'REPORT_DIR', '<dir>', `where reports are written (default ${DEFAULTS.reportDir})`],
  ['only', 'ONLY', 'rest,rpc,cross,preconf', 'run only these groups (repeatable: the groups of every --only; any case)'],
  ['grep', 'GREP', '<regex>', 'run only checks whose id matches this regular expression (join ids with |; repeatable: ids matching any)'],
  ['timeout-ms', 'TIMEOUT_MS', '<ms>', `per-request timeout (default ${DEFAULTS.timeoutMs})`],
  [
    'deadline-ms',
    'DEADLINE_MS',
    '<ms>',
    `whole-run deadline; then checks still running are inconclusive and those not begun skipped (cause stopped); both are not judged, and the run is incomplete (exit 3) unless a check failed (default ${DEFAULTS.deadlineMs})`,
  ],
  ['concurrency', 'CONCURRENCY', '<n>', `independent checks run at once (default ${DEFAULTS.concurrency}); signer checks always run one at a time`],
  [
    'max-rps',
    'MAX_RPS',
    '<n>',
    "cap on requests per second across the whole run, e.g. a provider plan's limit (default: no cap; throttled answers are waited out and retried anyway)",
  ],
  [
    'require',
    'REQUIRE',
    'full|none',
    'full: exit 3 (incomplete) unless both interfaces, the signer and every group are judged; recommended in CI (default none: judge what the given URLs allow)',
  ],
  [
    'samples',
    'SAMPLES',
    '<n>',
    'ask every read-only question n times, over fresh connections and two block intervals, and judge every answer (a fleet behind a load balancer); 1 to 1000 (default 1; 30 with --certify)',
  ],
  ['archive', 'ARCHIVE', '', 'the node must serve state at any block (archive node): pruned-history errors fail instead of skipping'],
  ['header', 'HEADERS', "'Name: value'", 'header sent to both targets (repeatable; env: one per line)'],
  ['rest-header', 'REST_HEADERS', "'Name: value'", 'header sent to the REST target only (repeatable; env: one per line)'],
  ['rpc-header', 'RPC_HEADERS', "'Name: value'", 'header sent to the JSON-RPC target only, e.g. provider credentials (repeatable; env: one per line)'],
  ['nav-max-age', 'NAV_MAX_AGE', '<duration>', 'your staleness bound for nav_price_updated_at (e.g. 36h); advisory only, spec 2.1 rule 2'],
  ['clock-skew', 'CLOCK_SKEW', '<duration>', 'allowance for timestamps in the future (default 5m)'],
  ['expectations', 'EXPECTATIONS', '<file.yml|json>', 'known failures of this target (each with reason and link)'],
  [
    'openapi',
    'OPENAPI',
    '<file|url>',
    "the API's own published OpenAPI document (2.0, 3.0, 3.1): judged against the spec (rest.openapi.*); with --base-url the live list is validated against it too",
  ],
  [
    'secret',
    'SECRETS',
    '<value>',
    'a value to redact from every output that the heuristics cannot recognise, e.g. a short key in a URL path (repeatable; env: comma- or newline-separated)',
  ],
  ['block-time', 'BLOCK_TIME_MS', '<ms>', `block time of the embedded reference target (default ${DEFAULTS.blockTimeMs})`],
  [
    'certify',
    'CERTIFY',
    '',
    'also write certificate.json (an in-toto test-result statement), predicate.json and badge.svg beside the reports (check one with: conformance verify-certificate <dir>)',
  ],
  [
    'sign-key',
    'CERT_SIGN_KEY_FILE',
    '<PEM file>',
    'sign the certificate (DSSE envelope) with this ECDSA P-256 or Ed25519 private key; the PEM itself may be given in CERT_SIGN_KEY instead; without a key the certificate is self-reported',
  ],
  [
    'flashblock-ms',
    'FLASHBLOCK_MS',
    '<ms>',
    `flashblock interval of the embedded reference target; 0 shows transactions at "pending" as soon as accepted (default ${DEFAULTS.flashblockMs})`,
  ],
  [
    'json',
    '',
    '',
    "print the run's document (what results.json holds) on stdout and every human line on stderr, for scripts (as gh --json does); the reports are written as usual; with --list, the checks as JSON",
  ],
  ['list', '', '', 'list the checks (after --only/--grep) and exit'],
  ['help', '', '', 'show this help (also -h)'],
  ['version', '', '', 'print the suite version'],
] as const;

/**
 * --help's sections, each naming its flags from the table above. A flag no section names is shown
 * under "other" (so a new row is never hidden); the test of --help wants every flag in a section.
 */
export const HELP_GROUPS: ReadonlyArray<readonly [heading: string, flags: readonly string[]]> = [
  ['target', ['base-url', 'rpc-url', 'embedded', 'profile', 'archive', 'openapi', 'timeout-ms', 'deadline-ms', 'concurrency', 'max-rps']],
  ['credentials', ['signer-key', 'max-spend-wei', 'header', 'rest-header', 'rpc-header', 'secret']],
  ['selection and judging', ['only', 'grep', 'require', 'samples', 'expectations', 'nav-max-age', 'clock-skew']],
  ['certification', ['certify', 'sign-key']],
  ['reports', ['report-dir', 'json']],
  ['reference knobs (the embedded reference target)', ['block-time', 'flashblock-ms']],
  ['questions', ['list', 'help', 'version']],
];

/** --help's closing examples: each a command a user would paste. */
export const HELP_EXAMPLES: readonly string[] = [
  'conformance                                              # judge the embedded reference target (outside CI)',
  'conformance --base-url https://api.example --rpc-url https://node.example --signer-key "$KEY" --require full',
  "conformance --rpc-url https://node.example --profile public --only rpc --grep 'rpc\\.getCode\\.'",
  // verify-certificate exits 0 only when it checked a signature: the certificate is signed, and its public key given.
  'conformance --base-url https://api.example --certify --sign-key key.pem --report-dir out && conformance verify-certificate out --key key.pub.pem',
  'CI=true conformance --embedded --require full             # in CI, the reference only when asked by name',
];

/** The flag rows of --help, in sections, each row padded like the others. */
export function helpRows(): string[] {
  const row = ([flag, env, arg, what]: (typeof OPTIONS)[number]) => `  --${flag}${arg ? ` ${arg}` : ''}`.padEnd(44) + `${what}${env ? ` [${env}]` : ''}`;
  const named = new Set(HELP_GROUPS.flatMap(([, flags]) => flags));
  const sections: Array<readonly [string, ReadonlyArray<(typeof OPTIONS)[number]>]> = [
    ...HELP_GROUPS.map(([heading, flags]) => [heading, flags.map((f) => OPTIONS.find(([name]) => name === f)!).filter(Boolean)] as const),
    ['other', OPTIONS.filter(([flag]) => !named.has(flag))] as const,
  ];
  return sections.filter(([, rows]) => rows.length > 0).flatMap(([heading, rows], i) => [...(i ? [''] : []), `${heading}:`, ...rows.map(row)]);
}

/** The values given to one flag in a raw command line (`--flag v`, `--flag=v`), before any parsing. */
export function rawValues(argv: readonly string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${flag}` && i + 1 < argv.length) out.push(argv[i + 1]);
    else if (argv[i].startsWith(`--${flag}=`)) out.push(argv[i].slice(flag.length + 3));
  }
  return out;
}
