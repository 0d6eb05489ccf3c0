// expect-error: selftest: the explanation comes second
// The expected message is there, but after another error, so the test must fail.
int main() { return undeclared_name; }

static_assert(sizeof(int) == 0, "selftest: the explanation comes second");
