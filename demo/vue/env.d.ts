/// <reference types="vite/client" />
// Types <kasir-checkout> in this app's templates for vue-tsc: its props and @kasir-* events.
import type {} from '@kasir/checkout/vue';
