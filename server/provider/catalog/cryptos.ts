// Crypto assets (GET /v1/reference/cryptos): EVM and Stellar, each id of the form <SYMBOL>-<NETWORK>. Each has a
// maximum per deposit or conversion worth about USD 1 million (about IDR 16.5 billion) at the sandbox's rates.
type BlockchainType = 'EVM' | 'STELLAR';

export interface CryptoDef {
  recordId: string;
  id: string;
  symbol: string;
  name: string;
  network: string;
  networkName: string;
  blockchainType: BlockchainType;
  /** Token contract (EVM) or issuer (Stellar); empty for native assets. */
  address: string;
  chainId: number;
  isNative: boolean;
  decimal: number;
  /**
   * The largest amount one deposit or conversion takes (decimal text, in the asset's units). With at most
   * min(decimal, 8) places (placesOf) it keeps every amount within the 15 significant digits a JSON number carries.
   */
  maximumAmount: string;
  priceId: string;
  currencies: string[];
  /** Goes through the service's smart-contract proxy (the useSmartContract filter). */
  useSmartContract: boolean;
  logo: string;
}

const evm = (
  recordId: string,
  symbol: string,
  name: string,
  network: string,
  networkName: string,
  chainId: number,
  address: string,
  decimal: number,
  maximumAmount: string,
  priceId: string,
  currencies: string[],
): CryptoDef => ({
  recordId,
  id: `${symbol}-${network}`,
  symbol,
  name,
  network,
  networkName,
  blockchainType: 'EVM',
  address,
  chainId,
  isNative: address === '',
  decimal,
  maximumAmount,
  priceId,
  currencies,
  useSmartContract: address !== '',
  logo: `${symbol.toLowerCase()}.svg`,
});

const stellar = (
  recordId: string,
  symbol: string,
  name: string,
  issuer: string,
  maximumAmount: string,
  priceId: string,
  currencies: string[],
): CryptoDef => ({
  recordId,
  id: `${symbol}-STELLAR`,
  symbol,
  name,
  network: 'STELLAR',
  networkName: 'Stellar',
  blockchainType: 'STELLAR',
  address: issuer,
  // Stellar has no EVM chain id; 148 is its SLIP-44 coin type.
  chainId: 148,
  isNative: issuer === '',
  decimal: 7,
  maximumAmount,
  priceId,
  currencies,
  useSmartContract: false,
  logo: `${symbol.toLowerCase()}.svg`,
});

const FIATS = ['IDR', 'USD', 'SGD', 'EUR', 'MYR', 'PHP'];

export const CRYPTOS: readonly CryptoDef[] = [
  evm(
    '65b2e1d3f5c1b2c3d4e5f001',
    'USDT',
    'Tether USD',
    'ETHEREUM',
    'Ethereum',
    1,
    '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    6,
    '1000000',
    'tether',
    FIATS,
  ),
  evm(
    '65b2e1d3f5c1b2c3d4e5f002',
    'USDC',
    'USD Coin',
    'ETHEREUM',
    'Ethereum',
    1,
    '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    6,
    '1000000',
    'usd-coin',
    FIATS,
  ),
  evm('65b2e1d3f5c1b2c3d4e5f003', 'ETH', 'Ether', 'ETHEREUM', 'Ethereum', 1, '', 18, '500', 'ethereum', ['IDR', 'USD']),
  evm(
    '65b2e1d3f5c1b2c3d4e5f004',
    'USDC',
    'USD Coin',
    'POLYGON',
    'Polygon',
    137,
    '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    6,
    '1000000',
    'usd-coin',
    FIATS,
  ),
  evm(
    '65b2e1d3f5c1b2c3d4e5f005',
    'USDT',
    'Tether USD',
    'POLYGON',
    'Polygon',
    137,
    '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
    6,
    '1000000',
    'tether',
    FIATS,
  ),
  evm(
    '65b2e1d3f5c1b2c3d4e5f006',
    'IDRX',
    'IDRX',
    'POLYGON',
    'Polygon',
    137,
    '0x649a2DA7B28E0D54c13D5eFf95d3A660652742cC',
    2,
    '16000000000',
    'idrx',
    ['IDR'],
  ),
  evm(
    '65b2e1d3f5c1b2c3d4e5f007',
    'POL',
    'Polygon Ecosystem Token',
    'POLYGON',
    'Polygon',
    137,
    '',
    18,
    '5000000',
    'polygon-ecosystem-token',
    ['IDR', 'USD'],
  ),
  evm(
    '65b2e1d3f5c1b2c3d4e5f008',
    'USDC',
    'USD Coin',
    'BASE',
    'Base',
    8453,
    '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    6,
    '1000000',
    'usd-coin',
    FIATS,
  ),
  stellar(
    '65b2e1d3f5c1b2c3d4e5f009',
    'USDC',
    'USD Coin',
    'GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN',
    '1000000',
    'usd-coin',
    FIATS,
  ),
  stellar('65b2e1d3f5c1b2c3d4e5f00a', 'XLM', 'Stellar Lumens', '', '3000000', 'stellar', ['IDR', 'USD']),
];

const byId: ReadonlyMap<string, CryptoDef> = new Map(CRYPTOS.map((c) => [c.id, c]));

export function findCrypto(id: string): CryptoDef | undefined {
  return byId.get(id);
}
