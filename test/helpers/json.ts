// How tests type a parsed JSON body. `Json` is read freely: its values are `any`, because a test
// asserts the wire shape it reads, and a wrong guess fails that assertion rather than the type
// check. `JsonObject` is narrowed before use, as code outside the tests must.
export type Json = Record<string, any>;
export type JsonObject = Record<string, unknown>;
