import { css } from 'lit';

export const styles = css`
  :host {
    display: block;
    max-width: var(--kasir-max-width, 30rem);
    --t: var(--kasir-text, #1d2433);
    color: var(--t);
    font: 1rem/1.45 var(--kasir-font, system-ui, sans-serif);
    --a: var(--kasir-accent, #0b5cd5);
    --m: var(--kasir-muted, #5b6475);
    --b: var(--kasir-border, #d5dae3);
    --s: var(--kasir-surface, #f5f7fa);
    --r: var(--kasir-radius, 12px);
    container-type: inline-size;
  }
  :host([hidden]),
  [hidden] {
    display: none;
  }
  /* Modal: the content is in the top layer; a line of height keeps the element itself counted as shown. */
  :host([modal]) {
    min-height: 1px;
  }
  * {
    box-sizing: border-box;
  }
  .card {
    background: var(--kasir-bg, #fff);
    border: 1px solid var(--b);
    border-radius: var(--r);
    padding: 1.25rem;
    display: grid;
    grid-template-columns: minmax(0, 1fr);
    gap: 0.9rem;
  }
  h2 {
    font-size: 1.2rem;
    margin: 0;
    display: flex;
    align-items: center;
    gap: 0.6rem;
    outline: none;
  }
  h3,
  .asset > span {
    font-size: 0.8rem;
    color: var(--m);
    margin: 0;
  }
  p,
  ol,
  ul,
  figure {
    margin: 0;
  }
  ul {
    list-style: none;
    padding: 0;
  }
  ul,
  ul > li {
    display: grid;
    gap: 0.5rem;
  }
  img {
    object-fit: contain;
    flex: none;
  }
  button {
    font: inherit;
    min-height: 44px;
    border-radius: calc(var(--r) - 4px);
    border: 1px solid var(--b);
    background: var(--kasir-bg, #fff);
    color: inherit;
    padding: 0.5rem 1rem;
    cursor: pointer;
  }
  .primary {
    background: var(--a);
    border-color: var(--a);
    color: var(--kasir-accent-text, #fff);
    font-weight: 600;
  }
  button:focus-visible,
  h2:focus-visible {
    outline: 3px solid var(--a);
    outline-offset: 2px;
  }
  button:disabled {
    cursor: default;
    opacity: 0.55;
  }
  /* Logo, name and total on a line; a total that does not fit goes under them, still at the right. */
  .method,
  .kind {
    width: 100%;
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    column-gap: 0.75rem;
    text-align: left;
    padding: 0.3rem 0.75rem;
  }
  .method:not(:disabled):hover,
  .kind:hover {
    border-color: var(--a);
    background: var(--s);
  }
  .name,
  .kind {
    font-weight: 600;
  }
  .fee {
    display: block;
    font-size: 0.85rem;
    color: var(--m);
  }
  .method > span {
    flex: 1 1 auto;
    max-width: calc(100% - 3.5rem);
  }
  .total,
  .kind::after {
    margin-left: auto;
    text-align: right;
    overflow-wrap: anywhere;
  }
  [aria-current] {
    border: 2px solid var(--a);
  }
  .kind {
    font-size: 1rem;
    color: var(--t);
  }
  /* Open or closed. */
  .kind::after {
    content: '+';
    font-size: 1.4rem;
    color: var(--m);
  }
  [aria-expanded='true']::after {
    content: '−';
  }
  @container (max-width: 25rem) {
    .card {
      padding: 1rem;
    }
    .method img {
      width: 36px;
    }
    h2 {
      font-size: 1.1rem;
    }
  }
  .row {
    display: flex;
    flex-wrap: wrap;
    justify-content: space-between;
    gap: 0.25rem 1rem;
    color: var(--m);
  }
  .row strong {
    color: var(--t);
  }
  .mono {
    font-variant-numeric: tabular-nums;
    font-weight: 700;
    letter-spacing: 0.02em;
  }
  .loading {
    display: flex;
    align-items: center;
    gap: 0.6rem;
    color: var(--m);
  }
  .spin {
    width: 1rem;
    height: 1rem;
    border: 2px solid var(--b);
    border-top-color: var(--a);
    border-radius: 50%;
    animation: spin 0.9s linear infinite;
  }
  @keyframes spin {
    to {
      transform: rotate(1turn);
    }
  }
  @media (prefers-reduced-motion: reduce) {
    .spin {
      animation: none;
    }
  }
  .result {
    text-align: center;
    display: grid;
    gap: 0.75rem;
    justify-items: center;
    padding: 0.5rem 0;
  }
  .result h2 {
    font-size: 1.35rem;
  }
  .ok h2 {
    color: var(--kasir-success, #137a3a);
  }
  .bad h2 {
    color: var(--kasir-danger, #b42318);
  }
  .icon {
    width: 3.5rem;
    line-height: 3.5rem;
    border-radius: 50%;
    background: var(--kasir-success, #137a3a);
    color: #fff;
    font-size: 2rem;
  }
  .sr {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
`;
