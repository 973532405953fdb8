/** A program outside jrdma's tree that uses jrdma as any application would: by module name. */
module com.example.first {
    requires io.jrdma.core;
}
