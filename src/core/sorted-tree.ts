import sortedBtree from "sorted-btree";

// sorted-btree is CommonJS with its class on `default`: Node hands over module.exports, while
// bundlers (vitest) unwrap `default` already. Accept both.
/** A B+ tree ordered by key (sorted-btree): the price-ordered indexes of triggers and alerts. */
export const BTree: typeof sortedBtree.default =
  (sortedBtree as unknown as { default?: typeof sortedBtree.default }).default ??
  (sortedBtree as unknown as typeof sortedBtree.default);
export type BTree<K, V> = sortedBtree.default<K, V>;
