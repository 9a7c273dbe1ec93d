export { badgeOf, badgeLabel, renderBadge, type Badge } from './badge';
export { keyIdOf, loadPublicKey, loadSigningKey, pae, signEnvelope, verifyEnvelope, type Envelope, type SigningKey } from './dsse';
export { buildStatement, ciRunUrl, maskUrl, sha256, TEST_RESULT_PREDICATE, type Statement } from './statement';
export { differences, verifyCertificate, VerifyError, type Verification } from './verify';
export { certificateFiles, certificationNote, CERTIFICATE_FILE, PREDICATE_FILE } from './write';
