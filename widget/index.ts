export * from './kasir-checkout';
