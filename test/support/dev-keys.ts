// anvil's funded dev accounts (its default mnemonic) that no reference chain of the tests uses
// otherwise, for tests that sign as several senders on one chain: account 0 is the reference's
// signer (SIGNER_KEY), 1 and 2 send the fault catalogue's traffic and deployments, 3 receives
// the reference tests' transfers. Two runs never share a key: their nonces would collide.
export const SPARE_SIGNER_KEYS = [
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a', // 4: 0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba', // 5: 0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e', // 6: 0x976EA74026E726554dB657fA54763abd0C3a0aa9
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356', // 7: 0x14dC79964da2C08b23698B3D3cc7Ca32193d9955
] as const satisfies ReadonlyArray<`0x${string}`>;
