package dev.turnstile.bridge.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleNameEndingWith;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The rings of the hexagon: only adapters and the composition root touch Vert.x or Kafka, and only
 * the Service Bus adapter and the root touch the Azure SDK.
 */
class ArchitectureTest {

  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.turnstile.bridge");

  @Test
  void onlyAdaptersAndTheRootUseVertxOrKafka() {
    noClasses()
        .that()
        .resideOutsideOfPackages("..adapter..")
        .and()
        .doNotHaveSimpleName("BridgeApplication")
        .and()
        .doNotHaveSimpleName("BridgeMain")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.vertx..", "org.apache.kafka..", "io.cloudevents.kafka..")
        .check(CLASSES.that(resideOutsideOfPackage("..config..")));
  }

  /**
   * The configuration declares its keys on Kafka's own {@code ConfigDef} and checks pass-through
   * keys against the clients' definitions; it uses nothing else of Kafka, and no Vert.x.
   */
  @Test
  void theConfigurationUsesOnlyKafkasConfigDefinitions() {
    noClasses()
        .that()
        .resideInAPackage("..config..")
        .should()
        .dependOnClassesThat(
            resideInAnyPackage("io.vertx..", "org.apache.kafka..", "io.cloudevents.kafka..")
                .and(not(resideInAPackage("org.apache.kafka.common.config..")))
                .and(not(simpleNameEndingWith("ClientConfig")))
                .and(not(simpleNameEndingWith("ProducerConfig"))))
        .check(CLASSES);
  }

  @Test
  void onlyTheServiceBusAdapterAndTheRootUseTheAzureSdk() {
    noClasses()
        .that()
        .resideOutsideOfPackages("..adapter.servicebus..")
        .and()
        .doNotHaveSimpleName("BridgeApplication")
        .and()
        .doNotHaveSimpleName("BridgeMain")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("com.azure..", "com.microsoft..")
        .check(CLASSES);
  }

  @Test
  void portsDependOnNoAdapterNorApplication() {
    noClasses()
        .that()
        .resideInAPackage("..port..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("..adapter..", "..application..", "..config..")
        .check(CLASSES);
  }

  @Test
  void theApplicationCoreDependsOnNoAdapter() {
    noClasses()
        .that()
        .resideInAnyPackage("..application..", "..config..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("..adapter..")
        .check(CLASSES);
  }
}
