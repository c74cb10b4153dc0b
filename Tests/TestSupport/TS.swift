import HummingbirdTesting
import Yams
public enum TS {}
