export * from './kasir-checkout.js';
