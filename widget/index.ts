import './early-words.js';
export * from './kasir-checkout.js';
