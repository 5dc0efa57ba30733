/// Release identifiers shared by every cull binary.
public enum CullVersion {
    /// The software release, shown by `--version`, in HELLO and in `cull workers`.
    public static let software = "0.1.0"
}
