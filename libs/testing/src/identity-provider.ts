import { createServer, type Server } from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export interface TokenOptions {
  /** Claims beyond the defaults (`iss`, `aud`, `sub`, `iat`, `exp` in an hour); `undefined` removes one. */
  claims?: Record<string, unknown>;
  /** Sign with a key the JWKS does not publish, under the current key's `kid` (a forged signature). */
  foreignKey?: boolean;
}

/**
 * A local identity provider for tests: serves a JWKS (`/.well-known/jwks.json`)
 * and signs real RS256 tokens with its current key. It can rotate its key
 * (the new `kid` is published, the old one dropped), go down (the JWKS
 * answers 503), and make the tokens an attacker would (`alg: none`, HS256
 * keyed with the public key). It counts JWKS fetches.
 */
export class TestIdentityProvider {
  fetches = 0;
  private down = false;
  private key!: SigningKey;
  private foreign!: SigningKey;

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
  ) {}

  static async start(audience = 'sextant-test'): Promise<TestIdentityProvider & { audience: string }> {
    let provider!: TestIdentityProvider;
    const server = createServer((req, res) => {
      if (req.url !== '/.well-known/jwks.json') return void res.writeHead(404).end();
      provider.fetches++;
      if (provider.down) return void res.writeHead(503).end('down');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [provider.key.jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    provider = new TestIdentityProvider(server, `http://127.0.0.1:${port}`);
    provider.key = await signingKey();
    provider.foreign = await signingKey();
    return Object.assign(provider, { audience });
  }

  get jwksUrl(): string {
    return `${this.issuer}/.well-known/jwks.json`;
  }

  /** A token for `sub`, valid for an hour, for `audience`. */
  async token(sub: string, audience: string, options: TokenOptions = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = { iss: this.issuer, aud: audience, sub, iat: now, exp: now + 3600, ...options.claims };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
    const key = options.foreignKey ? this.foreign.privateKey : this.key.privateKey;
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: this.key.kid, typ: 'JWT' }).sign(key);
  }

  /** An unsigned token (`alg: none`) with the usual claims. */
  unsigned(sub: string, audience: string): string {
    const now = Math.floor(Date.now() / 1000);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${part({ alg: 'none', typ: 'JWT' })}.${part({ iss: this.issuer, aud: audience, sub, iat: now, exp: now + 3600 })}.`;
  }

  /** An HS256 token keyed with the public key's JSON (the algorithm-confusion attack). */
  hmacWithPublicKey(sub: string, audience: string): string {
    const now = Math.floor(Date.now() / 1000);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const signed = `${part({ alg: 'HS256', typ: 'JWT', kid: this.key.kid })}.${part({ iss: this.issuer, aud: audience, sub, iat: now, exp: now + 3600 })}`;
    const mac = createHmac('sha256', JSON.stringify(this.key.jwk)).update(signed).digest('base64url');
    return `${signed}.${mac}`;
  }

  /** A new signing key with a new `kid`; the JWKS publishes only it from now on. */
  async rotate(): Promise<void> {
    this.key = await signingKey();
  }

  /** The JWKS answers 503 until `restore()`. */
  goDown(): void {
    this.down = true;
  }

  restore(): void {
    this.down = false;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function signingKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(6).toString('hex');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}
